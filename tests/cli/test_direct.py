"""``approve`` and ``approvals`` without typer (``chrysalis.cli.direct``) do exactly what typer would do.

Each command line ``direct`` takes reaches the command with the arguments typer passes for it; every
other one is left to typer; and the table knows every option the two commands have, so an option
added to one of them in typer cannot be dropped on the way.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption

from chrysalis.cli import approvals_cmd
from chrysalis.cli.app import app, main
from chrysalis.cli.direct import FLAGS, WORDS, direct

TAKEN = [
    ["approve", "abc123"],
    ["approve", "abc123", "--deny"],
    ["approve", "--json", "abc123"],
    ["approve", "abc123", "--json", "--deny"],
    ["approvals"],
    ["approvals", "--json"],
]
LEFT_TO_TYPER = [
    [],
    ["approve"],
    ["approve", "--help"],
    ["approve", "a", "b"],
    ["approve", "abc123", "--deny", "--deny"],
    ["approve", "--", "-abc"],
    ["approve", "abc123", "--yes"],
    ["approvals", "abc123"],
    ["--debug", "approve", "abc123"],
    ["queue"],
]


@pytest.fixture(autouse=True)
def collector_back_on() -> Iterator[None]:
    """A direct command leaves the collector off and every object frozen, for its process's exit; not this one's."""
    yield
    gc.unfreeze()
    gc.enable()


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """The calls of the two commands (which do nothing and exit 0)."""
    seen: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def recorder(name: str) -> Any:
        def record(*args: Any, **kwargs: Any) -> int:
            seen.append((name, args, kwargs))
            return 0

        return record

    monkeypatch.setattr(approvals_cmd, "approve_command", recorder("approve"))
    monkeypatch.setattr(approvals_cmd, "approvals_command", recorder("approvals"))
    return seen


def exit_code(run: Any) -> int:
    with pytest.raises(SystemExit) as stopped:
        run()
    return int(stopped.value.code or 0)


@pytest.mark.parametrize("argv", TAKEN)
def test_each_command_line_taken_directly_calls_the_command_as_typer_does(
    argv: list[str], calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]]
) -> None:
    assert direct(argv) is not None
    assert exit_code(lambda: main(argv)) == 0
    assert exit_code(lambda: app(args=argv, prog_name="chrysalis")) == 0
    assert len(calls) == 2 and calls[0] == calls[1], calls


@pytest.mark.parametrize("argv", LEFT_TO_TYPER)
def test_every_other_command_line_is_left_to_typer(argv: list[str]) -> None:
    assert direct(argv) is None


def test_the_table_knows_every_option_and_argument_of_the_two_commands() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    for name, flags in FLAGS.items():
        params = group.commands[name].params
        options = [param for param in params if isinstance(param, TyperOption)]
        assert {opt for option in options for opt in option.opts} == flags, name
        assert all(option.is_flag and not option.secondary_opts for option in options), name
        assert sum(isinstance(param, TyperArgument) for param in params) == WORDS[name]
        assert len(options) + WORDS[name] == len(params), name


def test_approve_taken_directly_builds_no_typer_command_and_no_renderer() -> None:
    code = (  # typer's commands import pydantic for their validators; the renderer, rich and the event types
        "import sys; from chrysalis.cli.app import main\n"
        "try:\n    main(['approve', 'nope'])\nexcept SystemExit as stop:\n    print('EXIT', stop.code)\n"
        "print('LOADED', [m for m in ('pydantic', 'chrysalis.cli.render', 'chrysalis.events') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert "EXIT 2" in done.stdout and "LOADED []" in done.stdout, done.stdout + done.stderr
    assert "No approval request 'nope'" in done.stderr
