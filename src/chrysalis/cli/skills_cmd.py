"""``chrysalis skills list | show NAME | lint [PATH...]``: the skills a run may read (``capabilities/skills``).

``list`` and ``show`` answer "what will the model be offered?"; ``lint`` answers "why is my skill
not offered, or not portable?" with one ``FILE:LINE: message`` per problem, like a compiler, and
exit 2 when there is any, so it can run in CI or a pre-commit hook.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from chrysalis.capabilities.skills.discovery import (
    SKILL_FILE,
    Skill,
    SkillProblem,
    discover_skills,
    find_skill_files,
    skill_folders,
)
from chrysalis.capabilities.skills.lint import lint_skill
from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import EXIT_OK, EXIT_USAGE, UsageError

__all__ = ["skills_lint_command", "skills_list_command", "skills_show_command"]

_DESCRIPTION_COLUMN = 90


def skills_list_command(flags: SettingFlags, *, json_output: bool) -> int:
    """Print each skill: name, where it was found, description, and whether a workspace skill hides it."""
    settings = load_settings(flags)
    found = discover_skills(settings.workspace, settings.home)
    print_warnings(
        tuple(f"skill left out: {_shown_problem(p)} (chrysalis skills lint says more)" for p in found.broken)
    )
    rows = [(skill, False) for skill in found.skills] + [(skill, True) for skill in found.shadowed]
    rows.sort(key=lambda row: (row[0].name, row[1]))
    if json_output:
        print(json.dumps([_as_json(skill, shadowed) for skill, shadowed in rows], indent=2))
        return EXIT_OK
    if not rows:
        print(f"No skills. Put one in {_where(settings)} as NAME/{SKILL_FILE} (see docs/skills.md).")
        return EXIT_OK
    width = max(len(skill.name) for skill, _ in rows)
    for skill, shadowed in rows:
        note = f"(hidden by the workspace's {skill.name}) " if shadowed else ""
        description = note + skill.summary
        if len(description) > _DESCRIPTION_COLUMN:
            description = description[: _DESCRIPTION_COLUMN - 3].rstrip() + "..."
        print(f"{skill.name:<{width}}  {skill.origin:<9}  {description}")
    return EXIT_OK


def _as_json(skill: Skill, shadowed: bool) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "where": skill.origin,
        "path": str(skill.path),
        "shadowed": shadowed,
    }


def skills_show_command(name: str, flags: SettingFlags) -> int:
    """Print the SKILL.md of the skill a run would read as ``name``.

    Raises:
        UsageError: No skill has that name (the message lists the names there are).
    """
    settings = load_settings(flags)
    found = discover_skills(settings.workspace, settings.home)
    skill = found.get(name)
    if skill is not None:
        sys.stdout.write(skill.path.read_text(encoding="utf-8", errors="replace"))
        return EXIT_OK
    left_out = [p for p in found.broken if p.path.parent.name == name]
    if left_out:
        raise UsageError(
            f"The skill {name!r} is left out of runs: {_shown_problem(left_out[0])}. "
            f"Run chrysalis skills lint {_shown(left_out[0].path)} to see every problem."
        )
    known = ", ".join(found.names) if found.names else f"none (put one in {_where(settings)})"
    raise UsageError(f"No skill is named {name!r}. The skills are: {known}.")


def skills_lint_command(paths: list[Path], flags: SettingFlags) -> int:
    """Print ``FILE:LINE: message`` for each problem of the given skills (default: every one found).

    Returns 0 when there is none, 2 when there is any.

    Raises:
        UsageError: A path is neither a SKILL.md, a skill's folder nor a folder of skills.
    """
    extra: list[SkillProblem] = []
    if paths:
        files = [file for path in paths for file in _skill_files_in(path)]
    else:
        settings = load_settings(flags)
        files = [path for _, path in find_skill_files(settings.workspace, settings.home)[0]]
        extra = list(discover_skills(settings.workspace, settings.home).broken)  # a misnamed file, a duplicate name
        if not files and not extra:
            print(f"No skills to check in {_where(settings)}.")
            return EXIT_OK
    problems = _problems(files, extra)
    for problem in problems:
        print(_shown_problem(problem))
    checked = len({p.path for p in problems} | set(files))
    if problems:
        failing = len({p.path for p in problems})
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {failing} of {checked} skill file(s).")
        return EXIT_USAGE
    print(f"{checked} skill{'s' if checked != 1 else ''} checked: no problems.")
    return EXIT_OK


def _problems(files: list[Path], extra: list[SkillProblem]) -> list[SkillProblem]:
    """The problems of ``files``, then those discovery found besides (a misnamed file, a duplicate name)."""
    problems: list[SkillProblem] = []
    for file in files:
        problems.extend(lint_skill(file))
    problems.extend(p for p in extra if p not in problems)
    return problems


def _skill_files_in(path: Path) -> list[Path]:
    """The SKILL.md files ``path`` names: itself, its own SKILL.md, or its skill folders' SKILL.md files."""
    if path.is_file():
        return [path]
    if (path / SKILL_FILE).is_file():
        return [path / SKILL_FILE]
    found = sorted(path.glob(f"*/{SKILL_FILE}")) if path.is_dir() else []
    if not found:
        what = f"no {SKILL_FILE} here" if path.exists() else "no such file or folder"
        raise UsageError(
            f"{path}: {what}; give a {SKILL_FILE}, a skill's folder or a folder of skills (e.g. .chrysalis/skills)."
        )
    return found


def _where(settings: Settings) -> str:
    return " or ".join(_shown(root) for _, root in skill_folders(settings.workspace, settings.home))


def _shown_problem(problem: SkillProblem) -> str:
    return f"{_shown(problem.path)}:{problem.line}: {problem.message}"


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when it is inside it (short, and clickable in editors)."""
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
