"""The options several commands share, declared once, and the one function that turns them into config flags.

Every option is a string or a path as typed: the config layer validates them (``config.load_settings``),
so a bad flag and a bad config file get the same kind of message. Only typer is imported here, so
``chrysalis --help`` and shell completion stay fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from chrysalis.config import SettingFlags

__all__ = [
    "BaseUrlOpt",
    "BudgetOpt",
    "DebugOpt",
    "JsonArrayOpt",
    "JsonEventsOpt",
    "JsonObjectOpt",
    "JudgeOpt",
    "LevelOpt",
    "ModeOpt",
    "ModelOpt",
    "PriorityOpt",
    "StepsOpt",
    "TimeoutOpt",
    "UnsafeOpt",
    "VotingOpt",
    "WorkspaceOpt",
    "YesOpt",
    "config_flags",
]


def _complete_mode(incomplete: str) -> list[str]:
    from chrysalis.config import MODES

    return [mode for mode in MODES if mode.startswith(incomplete)]


def _complete_level(incomplete: str) -> list[str]:
    return [level for level in "0123" if level.startswith(incomplete)]


def _complete_priority(incomplete: str) -> list[str]:
    from chrysalis.config import PRIORITY_KEYWORDS

    return [word for word in PRIORITY_KEYWORDS if word.startswith(incomplete)]


ModelOpt = Annotated[str | None, typer.Option("--model", help="provider:name (local:qwen2.5-coder-1.5b, ...) or auto.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="An OpenAI-compatible server URL.")]
ModeOpt = Annotated[
    str | None, typer.Option("--mode", help="ask | architect | code | semantic.", autocompletion=_complete_mode)
]
LevelOpt = Annotated[
    str | None, typer.Option("--level", help="Security level 0..3 (3 allows shell).", autocompletion=_complete_level)
]
PriorityOpt = Annotated[
    str | None,
    typer.Option("--priority", help="fast | cheap | best | verbose | a sentence.", autocompletion=_complete_priority),
]
VotingOpt = Annotated[
    str | None,
    typer.Option(
        "--voting",
        help="Vote critical steps: auto (by priority), none (destructive commands only), low, medium, high, critical.",
    ),
]
BudgetOpt = Annotated[str | None, typer.Option("--budget", help="Most USD the run may spend.")]
TimeoutOpt = Annotated[str | None, typer.Option("--timeout", help="Most seconds the run may take.")]
StepsOpt = Annotated[str | None, typer.Option("--max-steps", help="Most model requests the run may make.")]
WorkspaceOpt = Annotated[Path | None, typer.Option("--workspace", help="The folder to work in (default: here).")]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Approve every action the security level allows.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Print the traceback when chrysalis hits a bug of its own.")]
JudgeOpt = Annotated[
    str | None,
    typer.Option(
        "--judge",
        help="A model that labels each write, command, network request and MCP call [SAFE] or [UNSAFE] before it runs.",
    ),
]
UnsafeOpt = Annotated[
    bool, typer.Option("--unsafe-no-sandbox", help="Where no sandbox works, run commands unconfined (unsafe).")
]
JsonEventsOpt = Annotated[bool, typer.Option("--json", help="Print one JSON event per line.")]
JsonObjectOpt = Annotated[bool, typer.Option("--json", help="One JSON object.")]
JsonArrayOpt = Annotated[bool, typer.Option("--json", help="One JSON array.")]


def config_flags(**given: Any) -> SettingFlags:
    """The options a command was given, as the flags ``config.load_settings`` takes: the ones left unset are dropped.

    An option not given is ``None``, or ``False`` for a switch such as ``--yes``, which can only turn a setting on.
    """
    from chrysalis.config import SettingFlags

    return SettingFlags(**{key: value for key, value in given.items() if value is not None and value is not False})
