"""A time limit for each test of a pytest run, so a bug that loops forever costs seconds, not the whole timeout.

Without it, ``run_tests`` on code stuck in a loop said only "Timed out after 120s" after two minutes:
no test results and no hint of where. With it, each test gets a sixth of the command's timeout (at
least 5 s); a test past it fails with a traceback through the lines it was stuck on, and after three
such tests pytest stops. The limit is generous on purpose (20 s at the default 120 s shell
timeout): a slow but correct test must not fail.

The plugin (``pytest_plugin/chrysalis_test_limit.py``) runs in the project's Python. Its folder holds
nothing else, so putting it first on ``PYTHONPATH`` can shadow none of the project's modules; the
sandbox binds it read-only (``SandboxSpec.readable``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

__all__ = ["LIMIT_OPTION", "PLUGIN_DIR", "PLUGIN_MODULE", "is_pytest", "per_test_limit", "with_test_limit"]

PLUGIN_DIR = Path(__file__).with_name("pytest_plugin")
PLUGIN_MODULE = "chrysalis_test_limit"
LIMIT_OPTION = "--chrysalis-test-limit"
_SHELL_SYNTAX = frozenset(";&|<>`$()\n")
"""A command with any of these is more than one pytest call: appending options could land elsewhere."""


def is_pytest(command: str) -> bool:
    """The command runs pytest (``pytest ...`` or ``python -m pytest ...``): its output can be read per test."""
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: not a command we can read
        return False
    return bool(words) and (Path(words[0]).name == "pytest" or words[1:3] == ["-m", "pytest"])


def per_test_limit(timeout: float) -> float:
    """Seconds one test may run when the whole run may take ``timeout``: a sixth of it, at least 5."""
    return max(5.0, timeout / 6)


def with_test_limit(command: str, timeout: float) -> str:
    """``command`` with the per-test limit when it is one plain pytest call; any other command as it is.

    The plugin is loaded with ``-p`` from ``PLUGIN_DIR``, put first on ``PYTHONPATH`` for this command
    only; run the result with ``PLUGIN_DIR`` readable in the sandbox.
    """
    if not is_pytest(command) or _SHELL_SYNTAX & set(command):
        return command
    path = shlex.quote(str(PLUGIN_DIR))
    limit = f"{LIMIT_OPTION}={per_test_limit(timeout):g}"
    return f"PYTHONPATH={path}${{PYTHONPATH:+:$PYTHONPATH}} {command} -p {PLUGIN_MODULE} {limit}"
