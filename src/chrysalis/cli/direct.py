"""The approval commands without typer: ``approve ID [--deny] [--json]`` and ``approvals [--json]``.

A person runs ``approve`` while a run waits on it, and before typer runs any command it builds all
of them, and a pydantic validator for each option it parses: about a fifth of ``approve``'s time
(``docs/durable.md``, "How the run wakes"). These two commands take an id and two flags, so
``main`` hands exactly these command lines to them directly. Any other (``--help``, a root option,
a flag given twice, ``--``, a missing or extra word) goes to typer, whose help and errors stay the
only ones. ``tests/cli/test_direct.py`` checks that each command line reaches the command with what
typer would pass, and that the commands have no option this table does not know.

Both commands are short and their process ends with them, so they run without the cyclic garbage
collector (``_without_collector``): importing SQLAlchemy and DBOS makes some 80,000 objects, and
the collector ran 193 times while they were made (then once more at exit) to free 653 of them. That
was a quarter of ``approve``'s CPU time. Reference counting still frees what the command drops.
"""

from __future__ import annotations

import gc
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

        return _without_collector(lambda: approvals_command(json_output=json_output))
    from chrysalis.cli.approvals_cmd import approve_command

    return _without_collector(lambda: approve_command(words[0], deny="--deny" in flags, json_output=json_output))


def _without_collector(command: Callable[[], int]) -> Callable[[], int]:
    """``command`` with the cyclic garbage collector off, then every object frozen (``gc.freeze``).

    Frozen objects are left out of the last collection at exit. Only for a command the process ends with.
    """

    def run() -> int:
        gc.disable()
        try:
            return command()
        finally:
            gc.freeze()

    return run
