"""The knowledge graph (seed 000's semantic mode): triples about a project, per scope, queried with SPARQL.

A triple is (subject, predicate, object): the subject and predicate are IRIs, the object an IRI or
a plain text literal. They live in the ``triples`` table of the shared database, in the scopes
memories use (``global``, ``workspace:/abs/path``; ``stores/memory.py``), each triple once per scope.

Terms are written the way a model or person thinks of them (``to_iri``):

- a plain word or phrase is a name in the project's namespace, ``urn:chrysalis:`` followed by the
  name percent-encoded, its spaces written ``_`` (``parser.py`` -> ``urn:chrysalis:parser.py``,
  ``depends on`` and ``depends_on`` -> ``urn:chrysalis:depends_on``, ``C#`` -> ``urn:chrysalis:C%23``):
  the same text always gives the same IRI, and names differing in more than spaces never share one.
  In SPARQL the namespace is the prefix ``kg:`` (``kg:parser.py``);
- ``rdf:``, ``rdfs:``, ``xsd:``, ``owl:``, ``schema:`` (schema.org) and ``kg:`` prefixed names are
  expanded, and the predicate ``a`` is ``rdf:type``, as in Turtle and SPARQL;
- a full IRI is ``<...>``, or starts with ``http://``, ``https://``, ``urn:``, ``file://``,
  ``mailto:`` or ``tag:``.

``show_term`` turns an IRI back into the shortest text that ``to_iri`` reads as the same IRI.
Queries load the triples of the asked scopes into a short-lived in-memory rdflib graph
(``stores/sparql.py``); rdflib is imported only then.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, unquote

from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database
from chrysalis.stores.memory import check_scope

if TYPE_CHECKING:
    from rdflib import Graph

    from chrysalis.stores.sparql import QueryResult

__all__ = [
    "EXAMPLE_QUERY",
    "MAX_LITERAL_CHARS",
    "MAX_TERM_CHARS",
    "NAMESPACE",
    "PREFIXES",
    "KnowledgeStore",
    "QueryError",
    "QueryProblem",
    "Triple",
    "show_term",
    "sparql_term",
    "to_iri",
]

NAMESPACE = "urn:chrysalis:"
"""Where plain names live: ``parser.py`` is ``urn:chrysalis:parser.py`` (``kg:parser.py`` in SPARQL)."""
PREFIXES: dict[str, str] = {
    "kg": NAMESPACE,
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "schema": "https://schema.org/",
}
"""The prefixed names terms and queries may use without declaring them."""
MAX_TERM_CHARS = 500
"""A subject, predicate or IRI object names a thing: a few words or a path, not a paragraph."""
MAX_LITERAL_CHARS = 2000
"""A literal object is a value or a short description (as long as a memory)."""
RDF_TYPE = PREFIXES["rdf"] + "type"
EXAMPLE_QUERY = "SELECT ?thing ?other WHERE { ?thing kg:depends_on ?other } LIMIT 20"
"""A query that works on any graph: shown with every refused query."""
QueryProblem = Literal["empty", "too_long", "syntax", "update", "remote", "timeout", "evaluation"]
_FULL_IRI_STARTS = ("http://", "https://", "urn:", "file://", "mailto:", "tag:")
_PREFIXED = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(.+)$", re.DOTALL)
_NOT_IN_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')
"""What SPARQL's IRIREF (and rdflib's URIRef check) forbids in an IRI."""
_NAME_SAFE = "!$&'()*+,;=:@/"
"""Characters kept as they are in a name's IRI, besides letters, digits and ``-._~``; the rest is %-encoded."""
_PN_LOCAL = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_-])?$")
"""Local names SPARQL reads after a prefix without escapes (a conservative subset of PN_LOCAL)."""
_SPACES = re.compile(r"\s+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:.")


class QueryError(ValueError):
    """A query that will not run (``stores/sparql.py``): ``problem`` says why, the message how to fix it."""

    def __init__(self, problem: QueryProblem, message: str) -> None:
        super().__init__(message)
        self.problem: QueryProblem = problem


def to_iri(text: str) -> str:
    """The IRI that ``text`` names: a full IRI, a known prefixed name, or a plain name in ``NAMESPACE``.

    Raises:
        ValueError: an empty or too long term, an unknown-looking IRI with forbidden characters; the
            message says what is allowed.
    """
    term = _SPACES.sub(" ", text.strip())
    if not term:
        raise ValueError("A term is empty: name the thing, e.g. 'parser.py' or 'depends_on'.")
    if len(term) > MAX_TERM_CHARS:
        raise ValueError(f"A term has {len(term)} characters; a name or IRI has at most {MAX_TERM_CHARS}.")
    if term.startswith("<") and term.endswith(">"):
        return _checked_iri(term[1:-1])
    if term.startswith(_FULL_IRI_STARTS):
        return _checked_iri(term)
    prefixed = _PREFIXED.match(term)
    if prefixed and prefixed[1] in PREFIXES:
        prefix, local = prefixed[1], prefixed[2].strip()
        return _name_iri(local) if prefix == "kg" else _checked_iri(PREFIXES[prefix] + local)
    return _name_iri(term)


def _name_iri(name: str) -> str:
    """A plain name's IRI: spaces become ``_`` (so a name never shows with a space), the rest is %-encoded."""
    return NAMESPACE + quote(name.replace(" ", "_"), safe=_NAME_SAFE)


def _checked_iri(iri: str) -> str:
    """``iri`` when it is absolute (``scheme:...``) and has nothing SPARQL forbids in an IRI."""
    if not _SCHEME.match(iri) or _NOT_IN_IRI.search(iri):
        raise ValueError(
            f"{iri!r} is not a valid absolute IRI (scheme:..., no spaces, quotes or <>{{}}|^`\\ inside): write a "
            "plain name instead, e.g. 'parser.py', which becomes a name in the project's namespace."
        )
    return iri


def show_term(iri: str) -> str:
    """The shortest text ``to_iri`` reads back as ``iri``: a plain name, a prefixed name, or ``<iri>``."""
    candidates: list[str] = []
    if iri.startswith(NAMESPACE):
        name = unquote(iri[len(NAMESPACE) :])
        candidates += [name, "kg:" + name]
    if iri == RDF_TYPE:
        candidates.append("rdf:type")
    candidates += [
        f"{prefix}:{iri[len(base) :]}"
        for prefix, base in PREFIXES.items()
        if prefix != "kg" and iri.startswith(base) and len(iri) > len(base)
    ]
    candidates.append(iri)
    for text in candidates:
        try:
            if to_iri(text) == iri:
                return text
        except ValueError:
            continue
    return f"<{iri}>"


def sparql_term(iri: str) -> str:
    """How a query writes ``iri``: ``kg:name`` or ``rdf:type`` where SPARQL allows it, else ``<iri>``."""
    for prefix, base in PREFIXES.items():
        if iri.startswith(base) and _PN_LOCAL.match(iri[len(base) :]):
            return f"{prefix}:{iri[len(base) :]}"
    return f"<{iri}>"


@dataclass(frozen=True)
class Triple:
    """One stored triple: IRIs for subject and predicate; the object an IRI or, when ``literal``, a text."""

    id: int
    scope: str
    subject: str
    predicate: str
    object: str
    literal: bool
    created_at: float

    def show(self) -> str:
        """``subject predicate object`` as a person writes them (a literal in double quotes)."""
        return f"{show_term(self.subject)} {show_term(self.predicate)} {self.show_object()}"

    def show_object(self) -> str:
        """The object as a person writes it: a name, or a literal in double quotes."""
        return json.dumps(self.object, ensure_ascii=False) if self.literal else show_term(self.object)

    def sparql(self) -> str:
        """The triple as a SPARQL pattern (``kg:parser.py kg:depends_on kg:lexer.py``)."""
        obj = json.dumps(self.object, ensure_ascii=False) if self.literal else sparql_term(self.object)
        return f"{sparql_term(self.subject)} {sparql_term(self.predicate)} {obj}"

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict: the full IRIs, the object, whether it is a literal, and the short form."""
        return {
            "id": self.id,
            "scope": self.scope,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "literal": self.literal,
            "created_at": self.created_at,
            "text": self.show(),
        }


def _terms(subject: str, predicate: str, obj: str, literal: bool) -> tuple[str, str, str]:
    """Subject, predicate and object as stored (secrets redacted first, as for memories)."""
    redact = current_redactor().text
    predicate_text = redact(predicate).strip()
    pred = RDF_TYPE if predicate_text == "a" else to_iri(predicate_text)
    if not literal:
        return to_iri(redact(subject)), pred, to_iri(redact(obj))
    value = redact(obj).strip()
    if not value:
        raise ValueError("The literal object is empty: write the value to keep.")
    if len(value) > MAX_LITERAL_CHARS:
        raise ValueError(f"The literal has {len(value)} characters; keep one to {MAX_LITERAL_CHARS}.")
    return to_iri(redact(subject)), pred, value


_TERMS = "subject = ? AND predicate = ? AND object = ? AND literal = ?"
_SAME = "scope = ? AND " + _TERMS


class KnowledgeStore:
    """The ``triples`` table: add, remove and list triples per scope; load or query them as an rdflib graph."""

    def __init__(self, db: Database) -> None:
        """Use ``db`` (shared with the other stores)."""
        self._db = db

    def add(self, subject: str, predicate: str, obj: str, scope: str, *, literal: bool = False) -> tuple[Triple, bool]:
        """Keep the triple in ``scope``; return it and whether it is new (an existing triple is kept as it was).

        Raises:
            ValueError: a bad term or scope; the message says what is allowed.
        """
        check_scope(scope)
        s, p, o = _terms(subject, predicate, obj, literal)
        with self._db.write() as conn:
            cursor = conn.execute(
                "INSERT INTO triples (scope, subject, predicate, object, literal, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope, subject, predicate, object, literal) DO NOTHING",
                (scope, s, p, o, int(literal), time.time()),
            )
            created = cursor.rowcount > 0
            (row,) = _rows(conn.execute(f"SELECT * FROM triples WHERE {_SAME}", (scope, s, p, o, int(literal))))
        return _triple(row), created

    def remove(
        self, subject: str, predicate: str, obj: str, scopes: Sequence[str], *, literal: bool = False
    ) -> list[Triple]:
        """Delete the triple from each of ``scopes`` that has it; return what was deleted (empty: none had it).

        Raises:
            ValueError: a bad term or scope.
        """
        scopes = [check_scope(scope) for scope in scopes]
        s, p, o = _terms(subject, predicate, obj, literal)
        where, params = _in("scope", scopes)
        match = f"{where} AND {_TERMS}"
        values = [*params, s, p, o, int(literal)]
        with self._db.write() as conn:
            rows = _rows(conn.execute(f"SELECT * FROM triples WHERE {match} ORDER BY id", values))
            conn.execute(f"DELETE FROM triples WHERE {match}", values)
        return [_triple(row) for row in rows]

    def triples(self, scopes: Sequence[str] | None = None, limit: int | None = None) -> list[Triple]:
        """The triples of ``scopes`` (all when None), oldest first."""
        where, params = _in("scope", scopes) if scopes is not None else ("1", [])
        rows = self._db.read(
            f"SELECT * FROM triples WHERE {where} ORDER BY id LIMIT ?", [*params, -1 if limit is None else limit]
        )
        return [_triple(row) for row in rows]

    def count(self, scopes: Sequence[str] | None = None) -> int:
        """How many triples ``scopes`` (all when None) hold."""
        where, params = _in("scope", scopes) if scopes is not None else ("1", [])
        return int(self._db.read(f"SELECT count(*) FROM triples WHERE {where}", params)[0][0])

    def graph(self, scopes: Sequence[str]) -> Graph:
        """A fresh in-memory rdflib graph of the triples of ``scopes`` together (a triple in two scopes is one)."""
        from chrysalis.stores.sparql import load_graph

        where, params = _in("scope", [check_scope(scope) for scope in scopes])
        rows = self._db.read(f"SELECT subject, predicate, object, literal FROM triples WHERE {where}", params)
        return load_graph((str(r[0]), str(r[1]), str(r[2]), bool(r[3])) for r in rows)

    def query(self, sparql: str, scopes: Sequence[str], *, max_rows: int = 50, timeout_s: float = 10.0) -> QueryResult:
        """Run a read-only SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the triples of ``scopes``.

        The query is checked before the graph is loaded, so a bad one costs nothing.

        Raises:
            QueryError: the query does not parse, is an update, uses SERVICE or FROM, runs past
                ``timeout_s``, or rdflib cannot evaluate it (a path along too long a chain); the
                message says which, and where for a syntax error.
        """
        from chrysalis.stores.sparql import prepare, run_prepared

        prepared = prepare(sparql)
        return run_prepared(prepared, self.graph(scopes), max_rows=max_rows, timeout_s=timeout_s)


def _in(column: str, values: Sequence[str]) -> tuple[str, list[str]]:
    """``column IN (?, ?, ...)`` and its parameters (``0`` when there are none: nothing matches)."""
    if not values:
        return "0", []
    return f"{column} IN ({', '.join('?' * len(values))})", list(values)


def _rows(cursor: sqlite3.Cursor) -> list[sqlite3.Row]:
    """The cursor's rows, each readable by column name (inside a write transaction)."""
    cursor.row_factory = sqlite3.Row
    return list(cursor.fetchall())


def _triple(row: Any) -> Triple:
    return Triple(
        id=int(row["id"]),
        scope=str(row["scope"]),
        subject=str(row["subject"]),
        predicate=str(row["predicate"]),
        object=str(row["object"]),
        literal=bool(row["literal"]),
        created_at=float(row["created_at"]),
    )
