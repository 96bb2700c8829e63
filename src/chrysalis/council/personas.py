"""Personas as data: the four built-in reviewers of seed 003 and the ``NAME.toml`` files that add or replace them.

A persona is a value, not a class: a name, a turn priority, an initiative mode, a prompt and the
words that wake it. The gate (``chrysalis.council.gate``) and the arbiter read only these fields, so
a user changes who sits on the council by writing a file, never code.

Where personas come from, later ones replacing earlier ones of the same name (names compare in any case):

1. the built-ins, ``ada``, ``lea``, ``phil`` and ``david`` (seed 003, section 6);
2. ``$CHRYSALIS_HOME/personas/*.toml``;
3. ``WORKSPACE/.chrysalis/personas/*.toml``, only once the workspace is trusted (``chrysalis trust``):
   a cloned repository must not be able to seat a reviewer with its own prompt, model and tools unasked.

A malformed file is a ``ConfigError`` (exit 2) that names the file, the line and the key, and nothing is
loaded: a council must not run with a panel other than the one the user wrote.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from chrysalis.config.choices import TOOL_PROFILES
from chrysalis.errors import ConfigError

__all__ = [
    "BUILTIN_SOURCE",
    "KEYS",
    "MODES",
    "PERSONA_FOLDER",
    "InitiativeMode",
    "Persona",
    "builtin_personas",
    "load_personas",
    "read_persona",
    "user_persona_folder",
    "workspace_persona_files",
    "workspace_persona_folder",
]

InitiativeMode = Literal["can_interject", "wait_for_mention", "proactive_when_triggered"]
"""When a persona wants the floor (seed 003's ``InitiativePolicy``; the gate applies it)."""
MODES: tuple[InitiativeMode, ...] = get_args(InitiativeMode)
BUILTIN_SOURCE = "builtin"
"""The ``source`` of a built-in persona; a persona read from a file has the file's path."""
PERSONA_FOLDER = "personas"
"""The folder of persona files, in ``$CHRYSALIS_HOME`` and in a workspace's ``.chrysalis``."""
KEYS = ("name", "priority", "mode", "prompt", "model", "tools", "triggers")
"""Every key a persona file may hold; ``priority``, ``mode`` and ``prompt`` are required."""
_REQUIRED = ("priority", "mode", "prompt")
_OPTIONAL = ("model", "tools")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")


@dataclass(frozen=True, kw_only=True)
class Persona:
    """One member of the council: who it is and when it wants to speak.

    A frozen value, checked when made: safe to share between councils and threads, and the same persona
    whether it came from a file or from code.
    """

    name: str
    """How the council and the other personas address it (``@lea`` or ``Lea`` is a mention)."""
    priority: float
    """Turn priority, 0..1: the arbiter's weight for this persona's confidence."""
    mode: InitiativeMode
    """``can_interject``: speaks while turns remain; ``wait_for_mention``: only once named;
    ``proactive_when_triggered``: once named or once a trigger word is said."""
    prompt: str
    """The system prompt of its turns: its role and what it looks for."""
    model: str | None = None
    """``provider:name`` for its turns; None: the council's model."""
    tools: str | None = None
    """A tool profile name (``chrysalis.config.TOOL_PROFILES``); None: the council's default."""
    triggers: tuple[str, ...] = ()
    """Words or phrases that wake it, matched as whole words in any case."""
    source: str = field(default=BUILTIN_SOURCE, compare=False)
    """``"builtin"``, or the path of the file it was read from."""

    def __post_init__(self) -> None:
        """Check every field as a file's key is checked, so a persona made in code is as sound as one read.

        Raises:
            ValueError: a field holds a value a persona file could not (the message says what is allowed).
        """
        object.__setattr__(self, "triggers", tuple(self.triggers))  # a list would make the persona unhashable
        for key in KEYS:
            value = getattr(self, key)
            problem = None if value is None and key in _OPTIONAL else _CHECKS[key](value)
            if problem is not None:
                raise ValueError(f"Persona {self.name!r}: {key} {problem}, not {value!r}.")
        object.__setattr__(self, "priority", float(self.priority))


def builtin_personas() -> tuple[Persona, ...]:
    """Seed 003's panel: Ada (structure), Lea (clarity), Phil (odds), David (bias), in that order."""
    return _BUILTINS


def read_persona(path: Path) -> Persona:
    """The persona in one ``NAME.toml`` file; ``name`` defaults to the file's stem.

    Raises:
        ConfigError: the file cannot be read, is not TOML, lacks a required key, or holds an unknown key
            or a bad value; the message names the file, the line and the key, and what is allowed.
    """
    text = _text_of(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}). Fix the syntax or delete the file.") from exc
    for key in data:
        if key not in KEYS:
            raise ConfigError(
                f"{path}:{_line_of(text, key)}: unknown key {key!r}. Allowed keys: {', '.join(KEYS)} (docs/council.md)."
            )
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise ConfigError(
            f"{path}: missing key {missing[0]!r}. A persona needs {', '.join(map(repr, _REQUIRED))}, "
            'e.g. priority = 0.7, mode = "can_interject", prompt = "You review ..." (docs/council.md).'
        )
    if "name" not in data and _check_name(path.stem) is not None:
        raise ConfigError(
            f"{path}: missing key 'name', and the file's name {path.stem!r} is no persona name "
            "(a letter, then letters, digits, '-' or '_'): rename the file or add a name key."
        )
    values: dict[str, Any] = {"name": path.stem, "source": str(path)}
    for key, value in data.items():
        problem = _CHECKS[key](value)
        if problem is not None:
            raise ConfigError(f"{path}:{_line_of(text, key)}: key {key!r} {problem}, not {value!r}.")
        values[key] = value
    return Persona(**values)


def load_personas(home: Path, workspace: Path | None = None, trusted: bool = False) -> tuple[Persona, ...]:
    """The council's panel: built-ins, then the user's files, then a trusted workspace's files.

    A file whose persona has a built-in's name (in any case) replaces it in its place; the others follow
    by name. A workspace that is not ``trusted`` adds nothing (``workspace_persona_files`` lists what it
    would have added, for a warning).

    Raises:
        ConfigError: a file is malformed (``read_persona``), or two files of one folder name the same persona.
    """
    panel = {persona.name.casefold(): persona for persona in builtin_personas()}
    folders = [user_persona_folder(home)]
    if workspace is not None and trusted:
        folders.append(workspace_persona_folder(workspace))
    for folder in folders:
        panel |= _read_folder(folder)
    builtins = [persona.name.casefold() for persona in builtin_personas()]
    added = sorted((key for key in panel if key not in builtins), key=lambda key: (key, panel[key].name))
    return tuple(panel[key] for key in [*builtins, *added])


def user_persona_folder(home: Path) -> Path:
    """``$CHRYSALIS_HOME/personas``."""
    return home / PERSONA_FOLDER


def workspace_persona_folder(workspace: Path) -> Path:
    """``WORKSPACE/.chrysalis/personas``."""
    return workspace / ".chrysalis" / PERSONA_FOLDER


def workspace_persona_files(workspace: Path) -> tuple[Path, ...]:
    """The workspace's persona files, sorted; unread (for the warning when the workspace is not trusted)."""
    return _files(workspace_persona_folder(workspace))


def _files(folder: Path) -> tuple[Path, ...]:
    return tuple(sorted(path for path in folder.glob("*.toml") if path.is_file())) if folder.is_dir() else ()


def _read_folder(folder: Path) -> dict[str, Persona]:
    found: dict[str, Persona] = {}
    for path in _files(folder):
        persona = read_persona(path)
        key = persona.name.casefold()
        if key in found:
            raise ConfigError(
                f"{path}: key 'name': {persona.name!r} is already the name of the persona in {found[key].source}. "
                "Give each file of a folder its own name."
            )
        found[key] = persona
    return found


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}). Save it as UTF-8.") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc}).") from exc


def _line_of(text: str, key: str) -> int:
    match = re.search(rf"^[ \t]*(?:{re.escape(key)}|\"{re.escape(key)}\")[ \t]*=", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _check_name(value: Any) -> str | None:
    ok = isinstance(value, str) and _NAME.fullmatch(value) is not None
    return None if ok else "must be a letter then up to 39 letters, digits, '-' or '_' (e.g. \"critic\")"


def _check_priority(value: Any) -> str | None:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return None if number and math.isfinite(value) and 0 <= value <= 1 else "must be a number from 0 to 1"


def _check_mode(value: Any) -> str | None:
    return None if value in MODES else f"must be one of {', '.join(map(repr, MODES))}"


def _check_text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "must be a non-empty string"


def _check_model(value: Any) -> str | None:
    ok = isinstance(value, str) and (value == "auto" or re.fullmatch(r"[\w.-]+:\S+", value) is not None)
    return None if ok else 'must be "provider:name" (e.g. "local:qwen2.5-coder-1.5b") or "auto"'


def _check_tools(value: Any) -> str | None:
    return None if value in TOOL_PROFILES else f"must be a tool profile: {', '.join(map(repr, TOOL_PROFILES))}"


def _check_triggers(value: Any) -> str | None:
    words = isinstance(value, list | tuple) and all(isinstance(word, str) and word.strip() for word in value)
    return None if words else 'must be a list of non-empty strings, e.g. ["always", "never"]'


_CHECKS: Mapping[str, Callable[[Any], str | None]] = {
    "name": _check_name,
    "priority": _check_priority,
    "mode": _check_mode,
    "prompt": _check_text,
    "model": _check_model,
    "tools": _check_tools,
    "triggers": _check_triggers,
}


def _builtin(name: str, priority: float, mode: InitiativeMode, role: str, triggers: Iterable[str]) -> Persona:
    prompt = (
        f"You are {name.capitalize()}, {role} Speak in a few sentences, to the point; "
        "name the person you answer when you answer someone, and say when you are unsure."
    )
    return Persona(name=name, priority=priority, mode=mode, prompt=prompt, triggers=tuple(triggers))


_BUILTINS: tuple[Persona, ...] = (
    _builtin(
        "ada",
        0.75,
        "can_interject",
        "the algorithmic architect on a review panel. You judge structure: structural elegance, "
        "composability, and whether the patterns fit (or are new and earn their place).",
        (
            "architecture",
            "design",
            "structure",
            "pattern",
            "abstraction",
            "module",
            "interface",
            "coupling",
            "refactor",
            "compose",
            "composable",
        ),
    ),
    _builtin(
        "lea",
        0.65,
        "wait_for_mention",
        "the implementation reviewer on a review panel. You judge clarity: readable code, documentation, "
        "naming, error messages and the developer's experience of using it.",
        (
            "readme",
            "docs",
            "documentation",
            "docstring",
            "naming",
            "readable",
            "error message",
            "example",
            "onboarding",
        ),
    ),
    _builtin(
        "phil",
        0.70,
        "can_interject",
        "the forecast analyst on a review panel. You judge the odds of success: estimates with their "
        "calibration, base rates of similar efforts, and what would change the forecast.",
        (
            "probability",
            "likely",
            "unlikely",
            "chance",
            "odds",
            "estimate",
            "forecast",
            "risk",
            "base rate",
            "deadline",
        ),
    ),
    _builtin(
        "david",
        0.90,
        "proactive_when_triggered",
        "the metacognitive guardian on a review panel. You watch for overconfidence, blind spots and bias "
        "(familiarity, anchoring, survivorship) in what the others say, and ask what would prove them wrong.",
        (
            "sure",
            "certain",
            "certainly",
            "obviously",
            "clearly",
            "always",
            "never",
            "guarantee",
            "guaranteed",
            "definitely",
            "100%",
            "no doubt",
            "trivial",
            "can't fail",
        ),
    ),
)
