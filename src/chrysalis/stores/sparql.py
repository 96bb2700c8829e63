"""Read-only SPARQL over a short-lived rdflib graph: check a query, run it against a deadline, cap its results.

``prepare`` parses and checks a query before any graph is built: only SELECT, ASK, CONSTRUCT and
DESCRIBE pass. An update (INSERT, DELETE, LOAD, CLEAR, ...) is refused by name, and so are SERVICE
(rdflib would fetch the remote endpoint) and FROM / FROM NAMED (the graph is the asked scopes'
triples, nothing else). Even a query that got through could not change anything: it runs on an
in-memory copy that is thrown away.

``run_prepared`` evaluates it with a deadline: the graph's store checks the clock at every triple
it hands to rdflib's evaluator, so a query whose patterns multiply (a cartesian product, a path
``*`` over a big graph) stops with a ``QueryError`` instead of holding the run. So does a path
along a chain of several hundred steps or more, which rdflib follows with one Python frame per
step (``RecursionError``). Results are cut at ``max_rows`` rows (or triples), and say so.

    store.query("SELECT ?m WHERE { kg:parser.py kg:depends_on ?m }", scopes)  # KnowledgeStore.query
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from pyparsing import ParseException, ParseResults
from rdflib import BNode, Graph, URIRef
from rdflib import Literal as RdfLiteral
from rdflib.plugins.sparql import algebra, parser
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query, SPARQLError
from rdflib.plugins.stores.memory import Memory

from chrysalis.stores.terms import PREFIXES, QueryError, show_term, sparql_term

if TYPE_CHECKING:
    from rdflib.graph import _ContextType, _TriplePatternType, _TripleType
    from rdflib.term import Node

__all__ = [
    "MAX_QUERY_CHARS",
    "Form",
    "Prepared",
    "QueryResult",
    "Value",
    "load_graph",
    "prepare",
    "run_prepared",
]

MAX_QUERY_CHARS = 10_000
Form = Literal["select", "ask", "construct", "describe"]
_FORMS: dict[str, Form] = {
    "SelectQuery": "select",
    "AskQuery": "ask",
    "ConstructQuery": "construct",
    "DescribeQuery": "describe",
}
_XSD = PREFIXES["xsd"]
_BARE_TYPES = frozenset(_XSD + t for t in ("integer", "decimal", "double", "boolean"))
"""Literals shown without quotes, as Turtle writes them."""
_UPDATE_START = re.compile(
    r"^(?:\s|#[^\n]*\n|PREFIX\s+[\w.-]*:\s*<[^>]*>|BASE\s*<[^>]*>)*"
    r"(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Prepared:
    """A parsed query that passed the checks, and its form."""

    query: Query
    form: Form
    text: str = ""
    """The query as written: ``SELECT *`` lists its variables in the order they first appear in it."""


@dataclass(frozen=True)
class Value:
    """One RDF term of a result, without rdflib types (SPARQL's JSON results say ``uri`` for an IRI)."""

    kind: Literal["uri", "literal", "bnode"]
    value: str
    datatype: str | None = None
    lang: str | None = None

    def show(self) -> str:
        """As a person writes it: a name, ``rdf:type``, ``"text"``, ``3``, ``"x"@en``, ``"2024-01-01"^^xsd:date``."""
        if self.kind == "uri":
            return show_term(self.value)
        if self.kind == "bnode":
            return "_:" + self.value
        text = json.dumps(self.value, ensure_ascii=False)
        if self.lang:
            return f"{text}@{self.lang}"
        if self.datatype in _BARE_TYPES:
            return self.value
        if self.datatype and self.datatype != _XSD + "string":
            return f"{text}^^{sparql_term(self.datatype)}"
        return text

    def to_json(self) -> dict[str, str]:
        """The term in the SPARQL 1.1 JSON results format."""
        term = {"type": self.kind, "value": self.value}
        if self.datatype:
            term["datatype"] = self.datatype
        if self.lang:
            term["xml:lang"] = self.lang
        return term


@dataclass(frozen=True)
class QueryResult:
    """What a query found: rows of a SELECT, the answer of an ASK, or the triples of a CONSTRUCT / DESCRIBE."""

    form: Form
    variables: tuple[str, ...] = ()
    """The SELECT's variables; ``subject``, ``predicate``, ``object`` for a graph."""
    rows: tuple[tuple[Value | None, ...], ...] = ()
    """One value per variable (None: unbound), at most ``max_rows`` of them."""
    answer: bool | None = None
    """The ASK's answer."""
    truncated: bool = False
    """More rows (or triples) matched than were kept."""

    def table(self) -> str:
        """A small text table: a header of the variables, one line per row, and how many there are."""
        if self.form == "ask":
            return "true" if self.answer else "false"
        if self.form == "select":
            if not self.rows:
                return "No rows match."
            lines = [" | ".join("?" + v for v in self.variables)]
            lines += [" | ".join("UNDEF" if v is None else v.show() for v in row) for row in self.rows]
            noun = "row" if len(self.rows) == 1 else "rows"
        else:
            if not self.rows:
                return "No triples."
            lines = [" ".join("UNDEF" if v is None else v.show() for v in row) for row in self.rows]
            noun = "triple" if len(self.rows) == 1 else "triples"
        more = f"the first {len(self.rows)} {noun}; more matched: add LIMIT/OFFSET or narrow the patterns"
        lines.append(f"({more})" if self.truncated else f"({len(self.rows)} {noun})")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """SPARQL 1.1 JSON results for SELECT and ASK; ``{"form", "triples"}`` for a graph; plus ``truncated``."""
        if self.form == "ask":
            return {"head": {}, "boolean": bool(self.answer)}
        rows = [
            {var: v.to_json() for var, v in zip(self.variables, row, strict=True) if v is not None} for row in self.rows
        ]
        if self.form == "select":
            return {"head": {"vars": list(self.variables)}, "results": {"bindings": rows}, "truncated": self.truncated}
        return {"form": self.form, "triples": rows, "truncated": self.truncated}


class _Timeout(Exception):
    """The query's deadline passed (raised inside rdflib's evaluation, caught by ``run_prepared``)."""


class _DeadlineMemory(Memory):
    """rdflib's in-memory store, checking the query's deadline at every triple it hands out."""

    deadline = math.inf

    def triples(
        self, triple_pattern: _TriplePatternType, context: _ContextType | None = None
    ) -> Generator[tuple[_TripleType, Generator[_ContextType | None, None, None]], None, None]:
        for found in super().triples(triple_pattern, context):
            if time.monotonic() > self.deadline:
                raise _Timeout
            yield found


def load_graph(rows: Iterable[tuple[str, str, str, bool]]) -> Graph:
    """A fresh in-memory graph of ``(subject, predicate, object, literal)`` rows, ready for ``run_prepared``."""
    graph = Graph(store=_DeadlineMemory())
    for subject, predicate, obj, literal in rows:
        graph.add((URIRef(subject), URIRef(predicate), RdfLiteral(obj) if literal else URIRef(obj)))
    return graph


def prepare(text: str) -> Prepared:
    """Parse ``text`` and check that it only reads the local graph.

    Raises:
        QueryError: empty or too long; does not parse (the parser's message, line and column); an
            update; SERVICE, FROM or FROM NAMED.
    """
    if not text.strip():
        raise QueryError("empty", "The query is empty: write a SELECT, ASK, CONSTRUCT or DESCRIBE query.")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError("too_long", f"The query has {len(text)} characters; at most {MAX_QUERY_CHARS}.")
    try:
        parsed = parser.parseQuery(text)
    except ParseException as exc:
        if _is_update(text):
            raise QueryError(
                "update",
                "SPARQL updates (INSERT, DELETE, LOAD, CLEAR, DROP, ...) are refused: a query only reads the "
                "graph (SELECT, ASK, CONSTRUCT or DESCRIBE).",
            ) from None
        raise QueryError("syntax", _syntax_message(exc)) from None
    _refuse_remote(parsed)
    try:
        query = algebra.translateQuery(parsed, initNs=PREFIXES)
    except Exception as exc:  # rdflib reports an unknown prefix or a misplaced aggregate as a plain Exception
        raise QueryError("syntax", f"The SPARQL query is not valid: {exc}") from None
    return Prepared(query, _FORMS[query.algebra.name], text)


def run_prepared(prepared: Prepared, graph: Graph, *, max_rows: int = 50, timeout_s: float = 10.0) -> QueryResult:
    """Evaluate ``prepared`` on ``graph`` (from ``load_graph``), keeping at most ``max_rows`` rows or triples.

    Raises:
        QueryError: it ran past ``timeout_s`` (``timeout``), or rdflib could not evaluate it (``evaluation``).
    """
    store = graph.store
    if not isinstance(store, _DeadlineMemory):
        raise TypeError("run_prepared needs a graph from load_graph (its store checks the deadline)")
    store.deadline = time.monotonic() + timeout_s
    try:
        result = graph.query(prepared.query)
        if prepared.form == "ask":
            return QueryResult("ask", answer=bool(result.askAnswer))
        if prepared.form == "select":
            names = [str(v) for v in result.vars or ()]
            order = sorted(range(len(names)), key=lambda i: _first_use(prepared.text, names[i]))
            values = ([_value(row[i]) for i in order] for row in cast(Iterable[Any], result))
            rows, truncated = _first(values, max_rows)
            return QueryResult("select", tuple(names[i] for i in order), rows, truncated=truncated)
        assert result.graph is not None
        triples = sorted(result.graph)  # sorted: the same graph prints the same way
        found, truncated = _first(([_value(node) for node in triple] for triple in triples), max_rows)
        return QueryResult(prepared.form, ("subject", "predicate", "object"), found, truncated=truncated)
    except _Timeout:
        raise QueryError(
            "timeout", f"The query ran longer than {timeout_s:g} s and was stopped: narrow its patterns or add LIMIT."
        ) from None
    except SPARQLError as exc:
        raise QueryError("evaluation", f"rdflib could not evaluate the query: {exc}") from None
    except RecursionError:  # rdflib follows a path (``+``, ``*``) depth first, one Python frame per step
        raise QueryError(
            "evaluation",
            "A property path (+ or *) led through a chain too long for rdflib to follow (several hundred steps). "
            "Follow a fixed number of steps instead, e.g. ?a kg:depends_on/kg:depends_on ?c, or start nearer the end.",
        ) from None
    finally:
        store.deadline = math.inf


def _first(rows: Iterator[list[Value | None]], limit: int) -> tuple[tuple[tuple[Value | None, ...], ...], bool]:
    """The first ``limit`` rows, and whether there were more (only one more is evaluated to know)."""
    kept: list[tuple[Value | None, ...]] = []
    for row in rows:
        if len(kept) == limit:
            return tuple(kept), True
        kept.append(tuple(row))
    return tuple(kept), False


def _first_use(text: str, variable: str) -> int:
    """Where ``?variable`` or ``$variable`` first appears in ``text`` (rdflib lists ``SELECT *``'s in set order)."""
    found = re.search(rf"[?$]{re.escape(variable)}(?!\w)", text)
    return found.start() if found else len(text)


def _value(node: Node | None) -> Value | None:
    if node is None:
        return None
    if isinstance(node, RdfLiteral):
        datatype = str(node.datatype) if node.datatype is not None else None
        return Value("literal", str(node), datatype, node.language)
    if isinstance(node, BNode):
        return Value("bnode", str(node))
    return Value("uri", str(node))


def _is_update(text: str) -> bool:
    """Whether ``text`` is (or starts like) a SPARQL update, so it is refused as one rather than as bad syntax."""
    if _UPDATE_START.match(text):
        return True
    try:
        parser.parseUpdate(text)
    except ParseException:
        return False
    return True


def _refuse_remote(parsed: ParseResults) -> None:
    """Refuse SERVICE (rdflib would query the endpoint over the network) and FROM / FROM NAMED."""
    for node in _walk(parsed):
        if node.name == "ServiceGraphPattern":
            raise QueryError("remote", "SERVICE is not allowed: a query reads only the local knowledge graph.")
        if node.name in ("DatasetClause", "NamedGraphClause", "DefaultGraphClause"):
            raise QueryError(
                "remote",
                "FROM and FROM NAMED are not supported: the graph a query reads is this workspace's and the global "
                "triples together. Leave the clause out.",
            )


def _walk(node: object) -> Iterator[CompValue]:
    """Every ``CompValue`` (rdflib's parse-tree node) under ``node``."""
    if isinstance(node, CompValue):
        yield node
        children: Iterable[object] = node.values()
    elif isinstance(node, ParseResults | list | tuple):
        children = node
    else:
        return
    for child in children:
        yield from _walk(child)


def _syntax_message(exc: ParseException) -> str:
    """The parser's complaint, where it is (line and column), and the line with a caret under the spot."""
    line = exc.line.rstrip()
    caret = " " * (exc.col - 1) + "^"
    return (
        f"The SPARQL query does not parse: {exc.msg}, found {exc.found} at line {exc.lineno}, "
        f"column {exc.col}:\n    {line}\n    {caret}"
    )
