"""What the agent knows beyond the task: ``skills``, ``memory`` and the knowledge graph (``kg``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chrysalis.cli.guard import guarded
from chrysalis.cli.options import JsonArrayOpt, JsonObjectOpt, WorkspaceOpt, config_flags

__all__ = ["ScopeOpt", "kg_app", "memory_app", "skills_app"]

skills_app = typer.Typer(
    help="Skills: SKILL.md instructions the agent reads when a task needs them.", add_completion=False
)
memory_app = typer.Typer(help="What the agent remembered: list, search, forget, reindex.", add_completion=False)
kg_app = typer.Typer(
    help="The knowledge graph (semantic mode): query it with SPARQL, list its triples.", add_completion=False
)
ScopeOpt = Annotated[str, typer.Option("--scope", help="workspace | global | all (every scope).")]


@skills_app.command("list")
def skills_list(workspace: WorkspaceOpt = None, json_output: JsonArrayOpt = False) -> None:
    """List the skills: name, where found (workspace or user), description, whether a workspace skill hides it."""
    from chrysalis.cli.skills_cmd import skills_list_command

    raise typer.Exit(guarded(lambda: skills_list_command(config_flags(workspace=workspace), json_output=json_output)))


@skills_app.command("show")
def skills_show(
    name: Annotated[str, typer.Argument(metavar="NAME", help="The skill's name (from `chrysalis skills list`).")],
    workspace: WorkspaceOpt = None,
) -> None:
    """Print a skill's SKILL.md, as a run would read it."""
    from chrysalis.cli.skills_cmd import skills_show_command

    raise typer.Exit(guarded(lambda: skills_show_command(name, config_flags(workspace=workspace))))


@skills_app.command("lint")
def skills_lint(
    paths: Annotated[
        list[Path] | None, typer.Argument(metavar="[PATH]...", help="SKILL.md files or folders (default: all found).")
    ] = None,
    workspace: WorkspaceOpt = None,
) -> None:
    """Check skills: front matter, name, description, referenced files. FILE:LINE: message; exit 2 on a problem."""
    from chrysalis.cli.skills_cmd import skills_lint_command

    raise typer.Exit(guarded(lambda: skills_lint_command(paths or [], config_flags(workspace=workspace))))


@memory_app.command("list")
def memory_list(scope: ScopeOpt = "all", workspace: WorkspaceOpt = None, json_output: JsonObjectOpt = False) -> None:
    """List the saved memories, newest first."""
    from chrysalis.cli.memory_cmd import memory_list_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: memory_list_command(flags, scope=scope, json_output=json_output)))


@memory_app.command("search")
def memory_search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    k: Annotated[int, typer.Option("-k", help="How many memories at most (1 to 50).")] = 10,
    workspace: WorkspaceOpt = None,
    json_output: JsonObjectOpt = False,
) -> None:
    """Find this workspace's and the global memories that best match QUERY (words and meaning)."""
    from chrysalis.cli.memory_cmd import memory_search_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: memory_search_command(flags, query, k=k, json_output=json_output)))


@memory_app.command("forget")
def memory_forget(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The memory's id (from list or search).")],
    json_output: JsonObjectOpt = False,
) -> None:
    """Delete one memory."""
    from chrysalis.cli.memory_cmd import memory_forget_command
    from chrysalis.config import chrysalis_home

    raise typer.Exit(guarded(lambda: memory_forget_command(memory_id, json_output=json_output, home=chrysalis_home())))


@memory_app.command("reindex")
def memory_reindex(
    everything: Annotated[
        bool, typer.Option("--all", help="Embed again the memories that already have this embedder's vectors.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonObjectOpt = False,
) -> None:
    """Give every memory a vector of the embedder the `embeddings` setting names (after changing it)."""
    from chrysalis.cli.memory_cmd import memory_reindex_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: memory_reindex_command(flags, everything=everything, json_output=json_output)))


@kg_app.command("query")
def kg_query(
    sparql: Annotated[str, typer.Argument(metavar="SPARQL", help="A SELECT, ASK, CONSTRUCT or DESCRIBE query.")],
    workspace: WorkspaceOpt = None,
    json_output: Annotated[bool, typer.Option("--json", help="SPARQL 1.1 JSON results.")] = False,
) -> None:
    """Query this workspace's and the global triples (names are kg:NAME); read-only."""
    from chrysalis.cli.kg_cmd import kg_query_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: kg_query_command(flags, sparql, json_output=json_output)))


@kg_app.command("list")
def kg_list(scope: ScopeOpt = "all", workspace: WorkspaceOpt = None, json_output: JsonObjectOpt = False) -> None:
    """List the triples, oldest first."""
    from chrysalis.cli.kg_cmd import kg_list_command

    flags = config_flags(workspace=workspace)
    raise typer.Exit(guarded(lambda: kg_list_command(flags, scope=scope, json_output=json_output)))
