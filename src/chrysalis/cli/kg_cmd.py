"""``chrysalis kg query | list``: the person's view of the knowledge graph the agent keeps (semantic mode).

``query`` runs a read-only SPARQL query over this workspace's and the global triples, as the
``kg_query`` tool does, and prints a table (``--json``: SPARQL 1.1 JSON results). ``list`` prints
the triples of a scope, oldest first. A query that does not parse, an update, SERVICE or FROM, and
a bad ``--scope`` exit 2 with the fix (a syntax error with the parser's line and column).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape

from chrysalis.agent.kg_tools import QUERY_TIMEOUT_S, graph_scopes
from chrysalis.cli.render import print_warnings
from chrysalis.config import Settings, load_settings
from chrysalis.errors import EXIT_OK, UsageError
from chrysalis.stores import Stores
from chrysalis.stores.knowledge import EXAMPLE_QUERY, QueryError
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope

__all__ = ["MAX_ROWS", "SCOPES", "kg_list_command", "kg_query_command"]

SCOPES = ("workspace", "global", "all")
MAX_ROWS = 1000
"""Rows (or triples) a query prints; it says when more matched."""


def _settings(flags: Mapping[str, Any]) -> Settings:
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    return settings


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def kg_query_command(flags: Mapping[str, Any], sparql: str, *, json_output: bool) -> int:
    """Run ``sparql`` over this workspace's and the global triples and print what it found.

    Raises:
        UsageError: the query is empty, does not parse, is an update, uses SERVICE or FROM, or runs too long.
    """
    settings = _settings(flags)
    with Stores.open(settings.home) as stores:
        try:
            found = stores.knowledge.query(sparql, graph_scopes(settings.workspace), max_rows=MAX_ROWS,
                                           timeout_s=QUERY_TIMEOUT_S)  # fmt: skip
        except QueryError as exc:
            raise UsageError(f"{exc}\nA query that works: chrysalis kg query '{EXAMPLE_QUERY}'") from None
    if json_output:
        print(json.dumps(found.to_json(), ensure_ascii=False))
    else:
        _console().print(escape(found.table()))
    return EXIT_OK


def kg_list_command(flags: Mapping[str, Any], *, scope: str, json_output: bool) -> int:
    """Print the triples of ``scope`` (workspace, global or all), oldest first.

    Raises:
        UsageError: ``scope`` is not one of ``SCOPES``.
    """
    if scope not in SCOPES:
        raise UsageError(f"--scope {scope!r} is not a scope: use one of {', '.join(SCOPES)}.")
    settings = _settings(flags)
    here = workspace_scope(settings.workspace)
    scopes = {"workspace": [here], "global": [GLOBAL_SCOPE], "all": None}[scope]
    with Stores.open(settings.home) as stores:
        triples = stores.knowledge.triples(scopes)
    if json_output:
        print(json.dumps({"triples": [triple.to_json() for triple in triples]}, ensure_ascii=False))
        return EXIT_OK
    console = _console()
    if not triples:
        console.print(f"No triples{'' if scope == 'all' else ' in the ' + scope + ' scope'} yet.")
        return EXIT_OK
    for triple in triples:
        where = "" if triple.scope == here else f"  ({triple.scope})"
        console.print(escape(f"{triple.show()}{where}"))
    return EXIT_OK
