"""The system prompt: the agent's rules, the mode, the project's own rules and a map of the workspace.

Small local models do much better when the prompt is short and concrete, so the prompt is a few
lines of rules plus what the project says about itself (``.chrysalis/rules.md`` and
``AGENTS.md``) and a shallow listing of the workspace, which saves the model a step.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from chrysalis.config import LEVEL_NAMES

__all__ = ["AGENT_CONTEXT", "PROJECT_RULE_FILES", "build_system_prompt", "workspace_map"]

PROJECT_RULE_FILES = (".chrysalis/rules.md", "AGENTS.md")
AGENT_CONTEXT = "agent"
"""The context (in ``$CHRYSALIS_HOME``) where ``chrysalis evolve`` keeps lessons (``system``) and ``tool_hints``."""
_MAX_RULES_CHARS = 4000
_MAX_MAP_ENTRIES = 40
_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def _template(name: str) -> str:
    return resources.files("chrysalis.agent").joinpath("prompts", f"{name}.md").read_text(encoding="utf-8").strip()


def build_system_prompt(workspace: Path, mode: str, *, level: int, tool_hints: str = "", lessons: str = "") -> str:
    """Assemble the system prompt for one run in ``workspace``.

    ``lessons`` are what ``chrysalis evolve`` learned from failed runs (the ``agent`` context).
    """
    sections = [_template("base").format(workspace=workspace.name or str(workspace)), _template(mode)]
    levels = ", ".join(f"{n} {name}" for n, name in LEVEL_NAMES.items())
    sections.append(f"Security level: {level} ({levels}).")
    if lessons.strip():
        sections.append("Lessons from earlier runs:\n" + lessons.strip())
    if tool_hints.strip():
        sections.append("Tool hints:\n" + tool_hints.strip())
    for relative in PROJECT_RULE_FILES:
        rules = _read_limited(workspace / relative)
        if rules:
            sections.append(f"Project rules from {relative}:\n{rules}")
    listing = workspace_map(workspace)
    if listing:
        sections.append("Files in the workspace:\n" + listing)
    return "\n\n".join(sections)


def _read_limited(path: Path) -> str:
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    return text if len(text) <= _MAX_RULES_CHARS else text[:_MAX_RULES_CHARS] + "\n[... rules truncated ...]"


def workspace_map(workspace: Path) -> str:
    """A sorted listing of the workspace, two levels deep, at most ``_MAX_MAP_ENTRIES`` lines."""
    entries: list[str] = []
    for path in sorted(workspace.iterdir()) if workspace.is_dir() else []:
        if path.name in _SKIP_DIRS or path.name.endswith(".egg-info"):
            continue
        if path.is_dir():
            entries.append(f"{path.name}/")
            children = sorted(c for c in path.iterdir() if c.name not in _SKIP_DIRS)
            entries.extend(f"{path.name}/{c.name}{'/' if c.is_dir() else ''}" for c in children[:15])
        else:
            entries.append(path.name)
        if len(entries) >= _MAX_MAP_ENTRIES:
            entries = [*entries[:_MAX_MAP_ENTRIES], "..."]
            break
    return "\n".join(entries)
