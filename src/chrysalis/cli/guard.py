"""How a command ends: our errors become their message and exit code, Ctrl-C 130, a bug one line.

Every command hands its work to ``guarded``, so a user never sees a traceback for their own mistake
(``chrysalis.errors``). ``invocation`` keeps what ``chrysalis.cli.app`` learned about this command
line before the command ran: the arguments as given and whether ``--debug`` asked for tracebacks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chrysalis.errors import ChrysalisError

__all__ = ["AlreadyShown", "Invocation", "guarded", "invocation"]


@dataclass
class Invocation:
    """This process's command line, as ``main`` and the root options saw it."""

    argv: list[str] = field(default_factory=list)
    """The command line as given, handed unchanged to the daemon when it takes a run."""
    debug: bool = False
    """Set by ``--debug`` (or ``CHRYSALIS_DEBUG=1``): bugs print their traceback, not only where it is saved."""


invocation = Invocation()


class AlreadyShown(Exception):
    """Carries an error that the command already showed (as an ``error`` event) up to its exit code."""

    def __init__(self, error: ChrysalisError) -> None:
        super().__init__(str(error))
        self.error = error


def guarded(action: Callable[[], int | None], *, json_output: bool = False) -> int:
    """Run a command; turn our errors into their message and exit code, Ctrl-C into 130.

    Anything else is a bug of ours: a short message says so and where the traceback is saved
    (``--debug`` prints it too). A run's own errors were already shown as ``error`` events, so
    ``run`` raises only what happened outside the run (``AlreadyShown`` marks the rest).
    """
    from chrysalis.config import chrysalis_home
    from chrysalis.errors import EXIT_INTERRUPTED, ChrysalisError, report_bug

    try:
        return int(action() or 0)
    except AlreadyShown as shown:
        _print_traceback(shown.error)
        return shown.error.exit_code
    except ChrysalisError as exc:
        if json_output:  # an error before any run: still one ``error`` line (docs/events.md), with no run id
            _print_json_error(exc)
        _print_error(str(exc))
        _print_traceback(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        if not json_output:
            _print_error("Interrupted.")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `chrysalis show RUN | head`: the reader has what it wanted; not a bug
        _stdout_to_devnull()
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        error = report_bug(exc, chrysalis_home(), doing="running this command")
        _print_error(str(error))
        _print_traceback(error)
        return error.exit_code


EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE, what a shell reports for a program its pipe's reader stopped reading."""


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so Python's flush at exit does not fail again on the closed pipe."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _print_traceback(error: BaseException) -> None:
    """With ``--debug``, print the traceback of a bug (the exception that caused an ``InternalError``)."""
    from chrysalis.errors import InternalError

    if invocation.debug and isinstance(error, InternalError) and error.__cause__ is not None:
        import traceback

        sys.stderr.write("".join(traceback.format_exception(error.__cause__)))


def _print_json_error(error: ChrysalisError) -> None:
    import json
    import time

    from chrysalis.redact import current

    event = {
        "run_id": None,
        "ts": time.time(),
        "type": "error",
        "reason": type(error).__name__,
        "message": str(error),
        "exit_code": error.exit_code,
        "steps": 0,
    }
    sys.stdout.write(json.dumps(current().value(event)) + "\n")
    sys.stdout.flush()


def _print_error(message: str) -> None:
    from rich.console import Console
    from rich.text import Text

    Console(stderr=True, highlight=False).print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)
