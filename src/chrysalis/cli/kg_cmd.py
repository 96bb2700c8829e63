"""``chrysalis kg query | list``: the person's view of the knowledge graph the agent keeps (semantic mode).

``query`` runs a read-only SPARQL query over this workspace's and the global triples, as the
``kg_query`` tool does, and prints a table (``--json``: SPARQL 1.1 JSON results). ``list`` prints
the triples of a scope, oldest first. A query that does not parse, an update, SERVICE or FROM, and
a bad ``--scope`` exit 2 with the fix (a syntax error with the parser's line and column).
"""

from __future__ import annotations

import json

from rich.markup import escape

from chrysalis.capabilities.knowledge.tools import QUERY_TIMEOUT_S, graph_scopes
from chrysalis.cli.scoped import SCOPES, check_scope, listing_console, scopes_of, settings_for
from chrysalis.config import SettingFlags
from chrysalis.errors import EXIT_OK, UsageError
from chrysalis.stores import Stores
from chrysalis.stores.knowledge import EXAMPLE_QUERY, QueryError
from chrysalis.stores.memory import workspace_scope

__all__ = ["MAX_ROWS", "SCOPES", "kg_list_command", "kg_query_command"]

MAX_ROWS = 1000
"""Rows (or triples) a query prints; it says when more matched."""


def kg_query_command(flags: SettingFlags, sparql: str, *, json_output: bool) -> int:
    """Run ``sparql`` over this workspace's and the global triples and print what it found.

    Raises:
        UsageError: the query is empty, does not parse, is an update, uses SERVICE or FROM, or runs too long.
    """
    settings = settings_for(flags)
    with Stores.open(settings.home) as stores:
        try:
            found = stores.knowledge.query(
                sparql, graph_scopes(settings.workspace), max_rows=MAX_ROWS, timeout_s=QUERY_TIMEOUT_S
            )
        except QueryError as exc:
            raise UsageError(f"{exc}\nA query that works: chrysalis kg query '{EXAMPLE_QUERY}'") from None
    if json_output:
        print(json.dumps(found.to_json(), ensure_ascii=False))
    else:
        listing_console().print(escape(found.table()))
    return EXIT_OK


def kg_list_command(flags: SettingFlags, *, scope: str, json_output: bool) -> int:
    """Print the triples of ``scope`` (workspace, global or all), oldest first.

    Raises:
        UsageError: ``scope`` is not one of ``SCOPES``.
    """
    check_scope(scope)
    settings = settings_for(flags)
    scopes = scopes_of(scope, settings.workspace)
    with Stores.open(settings.home) as stores:
        triples = stores.knowledge.triples(scopes)
    if json_output:
        print(json.dumps({"triples": [triple.to_json() for triple in triples]}, ensure_ascii=False))
        return EXIT_OK
    out = listing_console()
    if not triples:
        out.print(f"No triples{'' if scope == 'all' else ' in the ' + scope + ' scope'} yet.")
        return EXIT_OK
    for triple in triples:
        where = "" if triple.scope == workspace_scope(settings.workspace) else f"  ({triple.scope})"
        out.print(escape(f"{triple.show()}{where}"))
    return EXIT_OK
