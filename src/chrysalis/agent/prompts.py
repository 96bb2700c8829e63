"""The system prompt: the agent's rules, the mode, the project's own rules and a map of the workspace.

Small local models do much better when the prompt is short and concrete, so the prompt is a few
lines of rules plus what the project says about itself (``.chrysalis/rules.md`` and
``AGENTS.md``) and a shallow listing of the workspace, which saves the model a step. Skills get
one line each (``chrysalis.capabilities.skills.discovery``): their bodies come only through the ``skill`` tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from chrysalis.config import LEVEL_NAMES
from chrysalis.tools.base import ToolError
from chrysalis.tools.fileio import read_bytes
from chrysalis.tools.workspace import list_entries, resolve, show_entry

__all__ = ["AGENT_CONTEXT", "PROJECT_RULE_FILES", "build_system_prompt", "workspace_map"]

PROJECT_RULE_FILES = (".chrysalis/rules.md", "AGENTS.md")
AGENT_CONTEXT = "agent"
"""The context (in ``$CHRYSALIS_HOME``) where ``chrysalis evolve`` keeps lessons (``system``) and ``tool_hints``."""
_MAX_RULES_CHARS = 4000
_MAX_MAP_ENTRIES = 40
_MAP_CHILDREN = 15


def _template(name: str) -> str:
    return resources.files("chrysalis.agent").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8").strip()


def build_system_prompt(
    workspace: Path,
    mode: str,
    *,
    level: int,
    tool_hints: str = "",
    lessons: str = "",
    guidance: str = "",
    head: Sequence[str] = (),
    tail: Sequence[str] = (),
) -> str:
    """Assemble the system prompt for one run in ``workspace``.

    ``lessons`` are what ``chrysalis evolve`` learned from failed runs (the ``agent`` context);
    ``guidance`` is the run's priority in one line (``PriorityPlan.guidance``; empty for ``best``);
    ``head`` and ``tail`` are the capabilities' sections (``chrysalis.plugin.Offer``), in the registry's
    order: ``head`` before the project's rules and file map (the skills' one-line summaries), ``tail``
    after them (the compacted summary, the subscriptions, the memories matching the task), so that what
    comes first is the same from task to task (a prefix the model's cache keeps).
    """
    sections = [_template("base").format(workspace=workspace.name or str(workspace)), _template(mode)]
    levels = ", ".join(f"{n} {name}" for n, name in LEVEL_NAMES.items())
    sections.append(f"Security level: {level} ({levels}).")
    if guidance:
        sections.append(guidance)
    if lessons.strip():
        sections.append("Lessons from earlier runs:\n" + lessons.strip())
    if tool_hints.strip():
        sections.append("Tool hints:\n" + tool_hints.strip())
    sections.extend(section.strip() for section in head if section.strip())
    for relative in PROJECT_RULE_FILES:
        rules = _read_limited(workspace, relative)
        if rules:
            sections.append(f"Project rules from {relative}:\n{rules}")
    listing = workspace_map(workspace)
    if listing:
        sections.append("Files in the workspace:\n" + listing)
    sections.extend(section.strip() for section in tail if section.strip())
    return "\n\n".join(sections)


def _read_limited(workspace: Path, relative: str) -> str:
    """A project rule file's text, read as ``read_file`` would: never through a link out of the workspace."""
    try:
        path = resolve(workspace, relative, must_exist=True)
        data = read_bytes(workspace, path, relative)
    except (ToolError, OSError):  # missing, a folder, or a link that leaves the workspace: no rules from it
        return ""
    text = data.decode("utf-8", errors="replace").strip()
    return text if len(text) <= _MAX_RULES_CHARS else text[:_MAX_RULES_CHARS] + "\n[... rules truncated ...]"


def workspace_map(workspace: Path) -> str:
    """A sorted listing of the workspace, two levels deep, at most ``_MAX_MAP_ENTRIES`` lines.

    It shows what ``list_dir`` would: symlinked folders are not listed into, and a link that leaves
    the workspace appears as ``name -> outside the workspace`` (``tools.workspace.show_entry``).
    """
    root = workspace.resolve()
    entries: list[str] = []
    for path in list_entries(root) if root.is_dir() else []:
        if path.name.endswith(".egg-info"):
            continue
        entries.append(show_entry(path, root))
        if path.is_dir() and not path.is_symlink():
            entries.extend(show_entry(child, root) for child in list_entries(path)[:_MAP_CHILDREN])
        if len(entries) >= _MAX_MAP_ENTRIES:
            entries = [*entries[:_MAX_MAP_ENTRIES], "..."]
            break
    return "\n".join(entries)
