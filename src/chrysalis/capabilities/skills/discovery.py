"""Skills (seed 002; Anthropic's Agent Skills convention): instructions the model reads only when a task needs them.

A skill is a folder ``NAME`` holding ``SKILL.md``: front matter with ``name`` and ``description``
(``chrysalis.capabilities.skills.front_matter``), a Markdown body, and any files the body refers to. They are
found in the workspace's ``.chrysalis/skills/`` and in the user's ``$CHRYSALIS_HOME/skills/``; a
workspace skill hides a user skill of the same name, because the project knows its own needs best.

Progressive disclosure: the system prompt gets one line per skill (its name and what it is for),
the body reaches the model only when it calls the ``skill`` tool, and a file of the skill's folder
only when it asks for that file. So many skills cost a few prompt lines, not many documents, and
a small local model's prompt stays short. A skill that cannot be read (no front matter, a syntax
error, no description) is left out with a warning and never stops a run; ``chrysalis skills lint``
(``chrysalis.capabilities.skills.lint``) explains every problem with its file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from chrysalis.capabilities.skills.front_matter import FrontMatter, FrontMatterError, split_front_matter
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.fileio import read_bytes
from chrysalis.tools.workspace import resolve, walk_files

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "SKILL_FILE",
    "Origin",
    "Skill",
    "SkillArgs",
    "SkillProblem",
    "SkillSet",
    "discover_skills",
    "find_skill_files",
    "parse_skill_file",
    "read_skill",
    "skill_folders",
    "skill_tool",
]

SKILL_FILE = "SKILL.md"
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_SKILL_BYTES = 1_000_000
"""A SKILL.md larger than this is not read: details belong in other files of its folder."""
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_PROMPT_DESCRIPTION_CHARS = 240
_PROMPT_CHARS = 3000
_LISTED_FILES = 40

Origin = Literal["workspace", "user"]
"""Where a skill was found: the workspace's ``.chrysalis/skills`` or the user's ``$CHRYSALIS_HOME/skills``."""


@dataclass(frozen=True)
class SkillProblem:
    """One problem of a SKILL.md, at a line of the file; ``fatal`` ones keep the skill from being used."""

    path: Path
    line: int
    message: str
    fatal: bool = False

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class Skill:
    """A usable skill: what the prompt shows (name, description) and what the ``skill`` tool returns (body)."""

    name: str
    description: str
    path: Path
    """Its ``SKILL.md``."""
    origin: Origin
    body: str = field(repr=False)

    @property
    def folder(self) -> Path:
        """The skill's folder: the files its body refers to are in here."""
        return self.path.parent

    @property
    def summary(self) -> str:
        """The description on one line."""
        return " ".join(self.description.split())


def skill_folders(workspace: Path, home: Path) -> list[tuple[Origin, Path]]:
    """Where skills are looked for, the workspace's first; one folder when both are the same (a workspace at ~)."""
    project, user = workspace / ".chrysalis" / "skills", home / "skills"
    if _real(project) is not None and _real(project) == _real(user):
        return [("user", user)]
    return [("workspace", project), ("user", user)]


def _real(path: Path) -> Path | None:
    """``path`` with every symlink followed; None for a symlink loop (Python 3.11 raises RuntimeError there)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


def parse_skill_file(path: Path) -> tuple[FrontMatter | None, list[SkillProblem]]:
    """Read one SKILL.md: its front matter (None when unreadable) and the problems of the front matter."""
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_SKILL_BYTES else None
    except OSError as exc:
        return None, [SkillProblem(path, 1, f"cannot be read: {exc.strerror or exc}", fatal=True)]
    if data is None:
        message = f"is larger than {MAX_SKILL_BYTES} bytes; move details into other files of the skill's folder"
        return None, [SkillProblem(path, 1, message, fatal=True)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [SkillProblem(path, line, "is not UTF-8 text; save it as UTF-8", fatal=True)]
    try:
        front = split_front_matter(text)
    except FrontMatterError as exc:
        return None, [SkillProblem(path, exc.line, exc.message, fatal=True)]
    return front, [*_name_problems(path, front), *_description_problems(path, front)]


def _name_problems(path: Path, front: FrontMatter) -> Iterator[SkillProblem]:
    """``name``: present, lowercase letters, digits and single hyphens, at most 64 characters, the folder's name."""
    folder = path.parent.name
    given = front.fields.get("name")
    if given is None:
        yield SkillProblem(path, 1, f"the front matter has no 'name'; add 'name: {folder}'")
        return
    name, line = given.value.strip(), given.line
    if not name:
        yield SkillProblem(path, line, f"'name' is empty; write the skill's name, e.g. 'name: {folder}'")
        return
    if len(name) > MAX_NAME_CHARS:
        yield SkillProblem(path, line, f"'name' is {len(name)} characters long; the most is {MAX_NAME_CHARS}")
    if not _NAME.match(name):
        yield SkillProblem(
            path,
            line,
            f"'name' {name!r} may hold only lowercase letters, digits and single hyphens "
            f"between them, e.g. {_slug(name)!r}",
        )
    if name != folder:
        yield SkillProblem(
            path, line, f"'name' {name!r} differs from its folder's name {folder!r}; rename one so they are the same"
        )


def _description_problems(path: Path, front: FrontMatter) -> Iterator[SkillProblem]:
    """``description``: present and not empty (fatal: the model could not know when to use it), at most 1024 chars."""
    given = front.fields.get("description")
    if given is None:
        yield SkillProblem(
            path,
            1,
            "the front matter has no 'description'; add one that says what the skill does and when to use it",
            fatal=True,
        )
        return
    description = given.value.strip()
    if not description:
        yield SkillProblem(
            path, given.line, "'description' is empty; say what the skill does and when to use it", fatal=True
        )
    elif len(description) > MAX_DESCRIPTION_CHARS:
        yield SkillProblem(
            path,
            given.line,
            f"'description' is {len(description)} characters long; the most is "
            f"{MAX_DESCRIPTION_CHARS} (move details into the body)",
        )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:MAX_NAME_CHARS] or "my-skill"


def read_skill(path: Path, origin: Origin = "workspace") -> tuple[Skill | None, list[SkillProblem]]:
    """One skill and the problems of its front matter; the skill is None when a problem is fatal.

    A missing or bad ``name`` is only a lint problem: the skill goes by its folder's name when it has none.
    """
    front, problems = parse_skill_file(path)
    if front is None or any(p.fatal for p in problems):
        return None, problems
    given = front.fields.get("name")
    name = " ".join(given.value.split()) if given is not None else ""  # one line: it goes into the prompt
    description = front.fields["description"].value.strip()
    return Skill(name or path.parent.name, description, path, origin, front.body.strip("\n")), problems


@dataclass(frozen=True)
class SkillSet:
    """The skills a run may use (by name), the ones hidden by a workspace skill, and those left out."""

    skills: tuple[Skill, ...] = ()
    shadowed: tuple[Skill, ...] = ()
    """User skills hidden by a workspace skill of the same name."""
    broken: tuple[SkillProblem, ...] = ()
    """Why each skill left out was left out (one fatal problem each)."""

    @property
    def names(self) -> tuple[str, ...]:
        """The usable skills' names, sorted."""
        return tuple(skill.name for skill in self.skills)

    def get(self, name: str) -> Skill | None:
        """The usable skill called ``name``."""
        return next((skill for skill in self.skills if skill.name == name), None)

    def warnings(self) -> tuple[str, ...]:
        """One line per skill left out, for the terminal."""
        return tuple(f"skill left out: {p} (chrysalis skills lint checks them all)" for p in self.broken)

    def prompt_section(self) -> str:
        """The system prompt's lines about skills: names and descriptions only, never a body; '' when none."""
        if not self.skills:
            return ""
        lines = [
            "Skills: instructions for particular tasks, not shown here. Before a task one of them is for, "
            "call skill with its name to read its instructions, then follow them."
        ]
        size = len(lines[0])
        for shown, skill in enumerate(self.skills):
            summary = skill.summary
            if len(summary) > _PROMPT_DESCRIPTION_CHARS:
                summary = summary[: _PROMPT_DESCRIPTION_CHARS - 3].rstrip() + "..."
            line = f"- {skill.name}: {summary}"
            if size + len(line) > _PROMPT_CHARS:
                lines.append(f"- ... {len(self.skills) - shown} more (skill with an unknown name lists every name)")
                break
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines)

    def tools(self) -> dict[str, ToolSpec]:
        """The ``skill`` tool when there is a skill to read, else nothing (no tool the model cannot use)."""
        return {"skill": skill_tool(self)} if self.skills else {}


def discover_skills(workspace: Path, home: Path) -> SkillSet:
    """The skills of ``workspace`` and of the user (``home``), never raising for a bad file or folder.

    A workspace skill whose files lie outside the workspace (through a symlink) is left out: a
    repository must not make the agent read the user's files by naming them a skill.
    """
    usable: dict[str, Skill] = {}
    shadowed: list[Skill] = []
    files, broken = find_skill_files(workspace, home)
    here: dict[tuple[Origin, str], Skill] = {}
    for origin, path in files:
        skill, problems = read_skill(path, origin)
        if skill is None:
            broken.append(next(p for p in problems if p.fatal))
            continue
        twin = here.setdefault((origin, skill.name), skill)
        if twin is not skill:
            broken.append(
                SkillProblem(
                    path,
                    1,
                    f"another skill here is already named {skill.name!r} ({twin.path}); this one is left out",
                    fatal=True,
                )
            )
        elif skill.name in usable:
            shadowed.append(skill)
        else:
            usable[skill.name] = skill
    return SkillSet(tuple(sorted(usable.values(), key=lambda s: s.name)), tuple(shadowed), tuple(broken))


def find_skill_files(workspace: Path, home: Path) -> tuple[list[tuple[Origin, Path]], list[SkillProblem]]:
    """Every SKILL.md discovery reads, workspace first, and the problems of skill folders it cannot read."""
    files: list[tuple[Origin, Path]] = []
    problems: list[SkillProblem] = []
    for origin, root in skill_folders(workspace, home):
        confine = workspace if origin == "workspace" else None
        files.extend((origin, path) for path in _skill_files(root, confine, problems))
    return files, problems


def _skill_files(root: Path, confine: Path | None, broken: list[SkillProblem]) -> Iterator[Path]:
    """Each ``root/NAME/SKILL.md``, in name order; with ``confine``, only those inside that folder."""
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:  # no skills folder (the usual case), or unreadable: no skills from it
        return
    for folder in folders:
        path = folder / SKILL_FILE
        if not path.is_file():
            misnamed = _misnamed(folder)
            if misnamed is not None:
                broken.append(
                    SkillProblem(misnamed, 1, f"is named {misnamed.name!r}; it must be {SKILL_FILE!r}", fatal=True)
                )
            continue
        real = _real(path)
        if confine is not None and (real is None or not real.is_relative_to(confine.resolve())):
            broken.append(
                SkillProblem(
                    path,
                    1,
                    "leads out of the workspace through a symlink; a workspace skill must live in the workspace",
                    fatal=True,
                )
            )
            continue
        yield path


def _misnamed(folder: Path) -> Path | None:
    try:
        return next((p for p in folder.iterdir() if p.name.lower() == SKILL_FILE.lower()), None)
    except OSError:
        return None


class SkillArgs(ToolArgs):
    """Arguments of ``skill``."""

    name: str = Field(description="The skill's name, as listed under Skills in the system prompt.")
    file: str | None = Field(
        default=None,
        description="Optional: a file of the skill's folder to read (a path its instructions name) instead of them.",
    )


def skill_tool(skills: SkillSet) -> ToolSpec:
    """The ``skill`` tool of one run: a skill's instructions (and its files), only when the model asks."""

    def run(args: SkillArgs, ctx: ToolContext) -> ToolResult:
        skill = skills.get(args.name)
        if skill is None:
            raise ToolError(f"No skill is named {args.name!r}. The skills are: {', '.join(skills.names)}.")
        if args.file is None:
            return ToolResult.success(_instructions(skill, ctx.workspace))
        return ToolResult.success(_read_file(skill, args.file))

    return ToolSpec(
        "skill",
        "Read a skill's instructions (the skills are listed in the system prompt); read one before a task it is for.",
        SkillArgs,
        "read",
        0,
        run,
    )


def _instructions(skill: Skill, workspace: Path) -> str:
    """The body, where the skill's folder is, and which files it holds."""
    folder = skill.folder.resolve()
    where = folder.relative_to(workspace.resolve()) if folder.is_relative_to(workspace.resolve()) else folder
    text = f"Skill {skill.name} (folder {where}):\n{skill.body.strip()}"
    files = _files(skill)
    if files:
        text += f"\n\nFiles of this skill (read one with skill(name={skill.name!r}, file=PATH)): {', '.join(files)}"
    return text


def _files(skill: Skill) -> list[str]:
    """The skill's files other than SKILL.md, relative to its folder (at most ``_LISTED_FILES``, then a count)."""
    root = skill.folder.resolve()
    names = [p.relative_to(root).as_posix() for p in walk_files(root, root)]
    names = [name for name in names if name != SKILL_FILE]
    if len(names) > _LISTED_FILES:
        return [*names[:_LISTED_FILES], f"and {len(names) - _LISTED_FILES} more"]
    return names


def _read_file(skill: Skill, relative: str) -> str:
    """A text file of the skill's folder; nothing outside it, even through a symlink."""
    root = skill.folder.resolve()
    try:
        path = resolve(root, relative, must_exist=True)
    except ToolError:
        raise ToolError(
            f"Skill {skill.name!r} has no file {relative!r}; its files are: "
            f"{', '.join(_files(skill)) or 'none besides SKILL.md'}."
        ) from None
    data = read_bytes(root, path, relative)
    if b"\0" in data[:8192]:
        raise ToolError(f"{relative!r} of skill {skill.name!r} is a binary file; it cannot be shown as text.")
    return data.decode("utf-8", errors="replace")
