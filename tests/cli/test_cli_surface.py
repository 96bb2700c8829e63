"""Every command, group and option a user can type, with its default and help, against cli_surface.txt.

A change to the command line (a new option, a renamed flag, another default or help text) shows up here
as a diff of one readable file. When the change is meant, write the file again and commit it with the change:

    UPDATE_CLI_SURFACE=1 pytest tests/cli/test_cli_surface.py
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
import typer.main

from chrysalis.cli.app import app

SNAPSHOT = Path(__file__).with_name("cli_surface.txt")
UPDATE = os.environ.get("UPDATE_CLI_SURFACE") == "1"  # read before the fixtures clear the environment


def type_name(annotation: Any) -> str:
    return annotation.__name__ if isinstance(annotation, type) else str(annotation)


def describe_param(command: Any, param: Any) -> str:
    names = "/".join([*param.opts, *param.secondary_opts])
    facts = [param.param_type_name, type_name(param.type_descriptor.annotation)]
    facts += ["required"] if param.required else [f"default {param.default!r}"]
    facts += ["repeatable"] * param.multiple + [f"metavar {param.metavar}"] * bool(param.metavar)
    if getattr(param, "_custom_shell_complete", None) is not None:
        words = [item.value for item in param.shell_complete(typer.Context(command), "")]
        facts.append(f"completes {' '.join(words)}")
    return f"  {names} ({', '.join(facts)}): {param.help}"


def describe(command: Any, path: str) -> Iterator[str]:
    yield f"{path}: {command.help}"
    yield from (describe_param(command, param) for param in command.params)
    for name, sub in getattr(command, "commands", {}).items():
        yield from describe(sub, f"{path} {name}")


def test_the_command_line_is_the_one_in_the_snapshot() -> None:
    surface = "\n".join(describe(typer.main.get_command(app), "chrysalis")) + "\n"
    if UPDATE:
        SNAPSHOT.write_text(surface)
    assert surface == SNAPSHOT.read_text(), (
        "The command line changed: if that is meant, run UPDATE_CLI_SURFACE=1 pytest "
        "tests/cli/test_cli_surface.py and commit tests/cli/cli_surface.txt"
    )
