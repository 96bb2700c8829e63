"""The knowledge graph in a run (seed 000's semantic mode): ``kg_add``, ``kg_query`` and ``kg_remove``.

A model records how the parts of a project relate as triples, ``("parser.py", "depends_on",
"lexer.py")``, and asks about them in SPARQL (``stores/knowledge.py`` says how words become IRIs).
The scopes are those of memories: the run's workspace, and ``global`` for what holds everywhere.
``kg_query`` reads both together (effect ``read``: every mode offers it); ``kg_add`` and
``kg_remove`` change only Chrysalis's own store, never the workspace (effect ``memory``: ``code``
and ``semantic`` offer them, ``ask`` and ``architect`` do not; no level asks to confirm them).
A refused or broken query comes back as a failed result that names the problem and shows a
query that works.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from chrysalis.stores.knowledge import EXAMPLE_QUERY, KnowledgeStore, QueryError, Triple
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec

__all__ = ["MAX_ROWS", "QUERY_TIMEOUT_S", "KgAddArgs", "KgQueryArgs", "KgRemoveArgs", "graph_scopes", "kg_tools"]

MAX_ROWS = 50
"""Rows (or triples) a query shows the model; it is told when more matched."""
QUERY_TIMEOUT_S = 10.0
"""A query running longer is stopped (``stores/sparql.py``), so a runaway pattern cannot hold the run."""
_ONLY_READS = "To change the graph use kg_add and kg_remove; kg_query only reads."


class KgAddArgs(ToolArgs):
    """Arguments of ``kg_add``."""

    subject: str = Field(description="The thing the fact is about, e.g. 'parser.py' or 'Parser'.")
    predicate: str = Field(description="How they relate, e.g. 'depends_on', 'defined_in', 'a' (its type).")
    object: str = Field(description="The other thing, e.g. 'lexer.py'; or a value when literal is true.")
    literal: bool = Field(
        default=False, description="true: object is a text value (a description, a number), not a thing."
    )
    scope: Literal["workspace", "global"] = Field(
        default="workspace", description="workspace: only for this project; global: for every project."
    )


class KgQueryArgs(ToolArgs):
    """Arguments of ``kg_query``."""

    sparql: str = Field(
        description="A SPARQL SELECT, ASK, CONSTRUCT or DESCRIBE query. Names are kg:NAME, e.g. "
        "SELECT ?m WHERE { kg:parser.py kg:depends_on ?m }. Prefixes kg, rdf, rdfs, xsd, owl, schema are set."
    )


class KgRemoveArgs(ToolArgs):
    """Arguments of ``kg_remove``."""

    subject: str = Field(description="The subject, as it was added.")
    predicate: str = Field(description="The predicate, as it was added.")
    object: str = Field(description="The object, as it was added.")
    literal: bool = Field(default=False, description="true when the object was added as a text value.")
    scope: Literal["workspace", "global", "both"] = Field(
        default="both", description="Where to remove it from: this project's graph, the global one, or both."
    )


def graph_scopes(workspace: Path) -> list[str]:
    """The scopes a run in ``workspace`` reads: its own, then the global one."""
    return [workspace_scope(workspace), GLOBAL_SCOPE]


def kg_tools(knowledge: KnowledgeStore) -> dict[str, ToolSpec]:
    """The knowledge graph tools over ``knowledge``; each call's scopes come from its workspace."""

    def kg_add(args: KgAddArgs, ctx: ToolContext) -> ToolResult:
        scope = GLOBAL_SCOPE if args.scope == "global" else workspace_scope(ctx.workspace)
        try:
            triple, created = knowledge.add(args.subject, args.predicate, args.object, scope, literal=args.literal)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        where = "the global graph" if args.scope == "global" else "this workspace's graph"
        said = "Added to" if created else "Already in"
        return ToolResult.success(f"{said} {where}: {triple.show()}\nIn SPARQL: {triple.sparql()}")

    def kg_query(args: KgQueryArgs, ctx: ToolContext) -> ToolResult:
        scopes = graph_scopes(ctx.workspace)
        try:
            found = knowledge.query(args.sparql, scopes, max_rows=MAX_ROWS, timeout_s=QUERY_TIMEOUT_S)
        except QueryError as exc:  # syntax, an update, SERVICE/FROM, too slow
            change = f"\n{_ONLY_READS}" if exc.problem == "update" else ""
            raise ToolError(f"{exc}\nA query that works: {EXAMPLE_QUERY}{change}") from exc
        table = found.table()
        if found.form in ("select", "construct", "describe") and not found.rows and knowledge.count(scopes) == 0:
            table += "\nThe knowledge graph is empty: add facts with kg_add first."
        return ToolResult.success(table)

    def kg_remove(args: KgRemoveArgs, ctx: ToolContext) -> ToolResult:
        scopes = {
            "workspace": graph_scopes(ctx.workspace)[:1],
            "global": [GLOBAL_SCOPE],
            "both": graph_scopes(ctx.workspace),
        }[args.scope]
        try:
            gone = knowledge.remove(args.subject, args.predicate, args.object, scopes, literal=args.literal)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        if not gone:
            raise ToolError(
                "No such triple here; kg_query shows what is stored, e.g. "
                "SELECT ?p ?o WHERE { kg:SUBJECT ?p ?o } (give literal=true for a text object)."
            )
        return ToolResult.success("\n".join(f"Removed from {_where(t)}: {t.show()}" for t in gone))

    return {
        "kg_add": ToolSpec(
            "kg_add",
            "Add a fact to the knowledge graph as a triple, e.g. ('parser.py', 'depends_on', "
            "'lexer.py'); literal=true keeps the object as text. No approval needed.",
            KgAddArgs,
            "memory",
            0,
            kg_add,
        ),
        "kg_query": ToolSpec(
            "kg_query",
            "Query the knowledge graph (this workspace's and global facts) with SPARQL "
            "SELECT/ASK/CONSTRUCT/DESCRIBE; read-only.",
            KgQueryArgs,
            "read",
            0,
            kg_query,
        ),
        "kg_remove": ToolSpec(
            "kg_remove", "Remove a wrong fact (triple) from the knowledge graph.", KgRemoveArgs, "memory", 0, kg_remove
        ),
    }


def _where(triple: Triple) -> str:
    return "the global graph" if triple.scope == GLOBAL_SCOPE else "this workspace's graph"
