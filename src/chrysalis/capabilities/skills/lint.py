"""``chrysalis skills lint``: every problem of a SKILL.md, each with its file and line.

The front matter's problems come from ``chrysalis.capabilities.skills.discovery.parse_skill_file`` (the same checks
that decide whether a run may use the skill). On top, the body's references to other files of the
skill must exist and stay inside its folder: a skill travels as one folder (copied to another
project or to ``$CHRYSALIS_HOME/skills``), and the ``skill`` tool reads nothing outside it.

A reference is the target of a Markdown link or image (``[forms](FORMS.md)``), or a path in a
code span (``python scripts/fill.py``) that starts with ``./`` or ``../``, with one of the Agent
Skills folders (``scripts/``, ``references/``, ``assets/``), or with a folder the skill has. Other
code spans (``src/app.py``, ``os.path``) are about the user's project or code, not the skill, and
fenced code blocks are examples, so neither is checked.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from chrysalis.capabilities.skills.discovery import SkillProblem, parse_skill_file

__all__ = ["check_references", "lint_skill"]

_FENCE = re.compile(r"\s*(```|~~~)")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_PATH = re.compile(r"(?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)*/?\Z")
_SKILL_FOLDERS = frozenset({"scripts", "references", "assets"})
_PUNCTUATION = ",;:()'\"!?"


def lint_skill(path: Path) -> list[SkillProblem]:
    """Every problem of the SKILL.md at ``path``, in line order (none when it is clean)."""
    front, problems = parse_skill_file(path)
    if front is not None:
        problems.extend(check_references(path, front.body, front.body_line))
    return sorted(problems, key=lambda p: p.line)


def check_references(path: Path, body: str, first_line: int) -> list[SkillProblem]:
    """Problems of the files the body of ``path`` refers to: missing, or outside the skill's folder."""
    folder = path.parent
    problems: list[SkillProblem] = []
    seen: set[tuple[int, str]] = set()
    for line, target in _references(folder, body, first_line):
        if (line, target) in seen:
            continue
        seen.add((line, target))
        message = _problem(folder, target)
        if message:
            problems.append(SkillProblem(path, line, message))
    return problems


def _references(folder: Path, body: str, first_line: int) -> Iterator[tuple[int, str]]:
    """(line, target) of each reference to a file, outside fenced code blocks."""
    fenced = False
    for line, text in enumerate(body.split("\n"), first_line):
        if _FENCE.match(text):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _LINK.finditer(text):
            target = match[1].strip("<>").split("#", 1)[0].split("?", 1)[0]
            if target and not _SCHEME.match(target):
                yield line, unquote(target)
        for match in _CODE.finditer(_LINK.sub("", text)):
            for token in match[1].split():
                token = token.strip(_PUNCTUATION)
                if _names_a_skill_file(folder, token):
                    yield line, token


def _names_a_skill_file(folder: Path, token: str) -> bool:
    """Whether a word of a code span is a path into the skill's folder (see the module docstring)."""
    if "/" not in token or _SCHEME.match(token) or not _PATH.match(token):
        return False
    if token.startswith(("./", "../")):
        return True
    first = token.split("/", 1)[0]
    return first in _SKILL_FOLDERS or (folder / first).is_dir()


def _problem(folder: Path, target: str) -> str | None:
    """Why ``target`` (relative to ``folder``) is a bad reference, or None when it is a file of the skill."""
    outside = (
        f"refers to {target!r}, which is outside the skill's folder; a skill may use only its own files, "
        "so copy it into the folder"
    )
    if target.startswith(("/", "~")):
        return outside
    lexical = Path(posixpath.normpath(folder.resolve() / target))
    if not lexical.is_relative_to(folder.resolve()):
        return outside
    if not lexical.exists():
        return (
            f"refers to {target!r}, which is not in the skill's folder; add it or fix the path (paths are "
            "relative to the folder of SKILL.md)"
        )
    if not lexical.resolve().is_relative_to(folder.resolve()):
        return (
            f"refers to {target!r}, a symlink that leads outside the skill's folder; a skill may use only its "
            "own files, so copy the file into the folder"
        )
    return None
