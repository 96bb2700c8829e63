"""The built-in tools, by name, and the profiles that narrow them for sub-agents (seed 000).

This is the one list of tools: the agent, the CLI's ``--tools`` flag and sub-agent profiles all
select from it, so a tool added here is available everywhere and a typo is a clear usage error.
Restricting a sub-agent to a profile improves its focus and safety (seed 000, "Sub-Agent Management").
"""

from __future__ import annotations

from collections.abc import Iterable

from chrysalis.config import TOOL_PROFILES
from chrysalis.errors import UsageError
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.files import edit_file, list_dir, read_file, write_file
from chrysalis.tools.git import git_commit, git_diff, git_log, git_status
from chrysalis.tools.patch import apply_patch
from chrysalis.tools.run_tests import run_tests
from chrysalis.tools.search import find, grep
from chrysalis.tools.shell import shell
from chrysalis.tools.system import system_stats
from chrysalis.tools.web import web_fetch, web_search

__all__ = ["TOOL_PROFILES", "builtin_tools", "profile_tools", "select_tools"]

_BUILTINS: tuple[ToolSpec, ...] = (
    read_file,
    list_dir,
    find,
    grep,
    edit_file,
    write_file,
    apply_patch,
    shell,
    run_tests,
    git_status,
    git_diff,
    git_log,
    git_commit,
    system_stats,
    web_fetch,
    web_search,
)


def builtin_tools() -> dict[str, ToolSpec]:
    """Every built-in tool by name, in the order models see them (reading first, then writing)."""
    return {spec.name: spec for spec in _BUILTINS}


def select_tools(names: Iterable[str] | None) -> dict[str, ToolSpec]:
    """The named built-in tools, in the built-in order; ``None`` selects them all.

    Raises:
        UsageError: A name is not a built-in tool; the message lists the known ones.
    """
    tools = builtin_tools()
    if names is None:
        return tools
    wanted = [name.strip() for name in names]
    unknown = [name for name in wanted if name not in tools]
    if unknown:
        raise UsageError(
            f"Unknown tool {unknown[0]!r}. Known tools: {', '.join(tools)}."
            + (f" (Also unknown: {', '.join(map(repr, unknown[1:]))}.)" if len(unknown) > 1 else "")
        )
    return {name: spec for name, spec in tools.items() if name in wanted}


def profile_tools(profile: str) -> dict[str, ToolSpec]:
    """The tools of a named profile (``all``, ``editor``, ``researcher``, ``vcs``).

    Raises:
        UsageError: The profile is unknown; the message lists the known ones.
    """
    if profile not in TOOL_PROFILES:
        raise UsageError(f"Unknown tool profile {profile!r}. Known profiles: {', '.join(TOOL_PROFILES)}.")
    return select_tools(TOOL_PROFILES[profile])
