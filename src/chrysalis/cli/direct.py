"""The approval commands without typer: ``approve ID [--deny] [--json]`` and ``approvals [--json]``.

A person runs ``approve`` while a run waits on it, and before typer runs any command it builds all
of them, and a pydantic validator for each option it parses: about a fifth of ``approve``'s time
(``docs/durable.md``, "How the run wakes"). These two commands take an id and two flags, so
``main`` hands exactly these command lines to them directly. Any other (``--help``, a root option,
a flag given twice, ``--``, a missing or extra word) goes to typer, whose help and errors stay the
only ones. ``tests/cli/test_direct.py`` checks that each command line reaches the command with what
typer would pass, and that the commands have no option this table does not know.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FLAGS", "WORDS", "direct"]

FLAGS: dict[str, frozenset[str]] = {"approve": frozenset({"--deny", "--json"}), "approvals": frozenset({"--json"})}
"""Each command taken here, with all of its options (each a flag)."""
WORDS = {"approve": 1, "approvals": 0}
"""How many arguments each takes (``approve``: the request's id)."""


def direct(argv: list[str]) -> Callable[[], int] | None:
    """The command ``argv`` asks for, ready to run, if it is one of the command lines above; None: typer's."""
    if not argv or argv[0] not in FLAGS:
        return None
    name, rest = argv[0], argv[1:]
    flags = [word for word in rest if word.startswith("-")]
    words = [word for word in rest if not word.startswith("-")]
    if len(set(flags)) < len(flags) or not FLAGS[name].issuperset(flags) or len(words) != WORDS[name]:
        return None
    json_output = "--json" in flags
    if name == "approvals":
        from chrysalis.cli.approvals_cmd import approvals_command

        return lambda: approvals_command(json_output=json_output)
    from chrysalis.cli.approvals_cmd import approve_command

    return lambda: approve_command(words[0], deny="--deny" in flags, json_output=json_output)
