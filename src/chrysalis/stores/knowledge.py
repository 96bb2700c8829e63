"""The knowledge graph (seed 000's semantic mode): triples about a project, per scope, queried with SPARQL.

A triple is (subject, predicate, object): the subject and predicate are IRIs, the object an IRI or
a plain text literal. They live in the ``triples`` table of the shared database, in the scopes
memories use (``global``, ``workspace:/abs/path``; ``stores/memory.py``), each triple once per scope.

Terms are written the way a model or person thinks of them: ``parser.py`` is a name in the
project's namespace (``kg:parser.py`` in SPARQL), ``rdf:type`` a prefixed name, ``<https://...>`` a
full IRI; ``stores/terms.py`` reads and shows them, and its names are re-exported here.
Queries load the triples of the asked scopes into a short-lived in-memory rdflib graph
(``stores/sparql.py``); rdflib is imported only then.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.redact import current as current_redactor
from chrysalis.stores.db import Database
from chrysalis.stores.memory import check_scope
from chrysalis.stores.terms import (
    MAX_TERM_CHARS,
    NAMESPACE,
    PREFIXES,
    RDF_TYPE,
    QueryError,
    QueryProblem,
    show_term,
    sparql_term,
    to_iri,
)

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

MAX_LITERAL_CHARS = 2000
"""A literal object is a value or a short description (as long as a memory)."""
EXAMPLE_QUERY = "SELECT ?thing ?other WHERE { ?thing kg:depends_on ?other } LIMIT 20"
"""A query that works on any graph: shown with every refused query."""


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
