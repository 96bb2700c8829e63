"""A pytest plugin: a time limit per test, so a test stuck in a loop fails where it is.

A bug that makes the code loop forever used to hang the whole test run until its timeout killed
it: no test result, no coverage data, no traceback, so neither repair's localisation nor the model
reading ``run_tests`` had anything to point at. With this plugin each test gets
``--chrysalis-test-limit`` seconds; past it, a ``SIGALRM`` raises ``TestRanTooLong`` inside the
running code, so the test fails with a traceback whose last frames are the lines it was stuck on,
the other tests go on, and coverage writes its data as usual. After ``MAX_STUCK`` such tests the
session stops (each would cost the full limit and say the same). If the process is killed anyway
(a loop in C that no signal interrupts), ``faulthandler`` prints the stack on ``SIGTERM`` first.

It runs in the project's Python, so it imports nothing of Chrysalis, and Chrysalis never imports it
(pytest need not be installed beside Chrysalis). It sits alone in its folder so that folder can go
on the project's ``PYTHONPATH`` (``chrysalis.tools.per_test_limit``: ``run_tests`` and the final
check) without putting any other module there; repair copies the file into its throwaway copy of
the workspace instead (``chrysalis.repair.localise``).
"""

from __future__ import annotations

import faulthandler
import signal
from collections.abc import Generator
from types import FrameType
from typing import Any

import pytest

OPTION = "--chrysalis-test-limit"
"""``chrysalis.tools.per_test_limit.LIMIT_OPTION``."""
MAX_STUCK = 3
"""Tests that may run past the limit before the session stops."""

_stuck = pytest.StashKey[int]()


class TestRanTooLong(Exception):
    """Raised inside a test that ran past the limit, where it was."""

    __test__ = False


def pytest_addoption(parser: pytest.Parser) -> None:
    """The limit, in seconds (0: none)."""
    parser.addoption(OPTION, type=float, default=0.0, help="fail a test that runs longer than this many seconds")


def pytest_configure(config: pytest.Config) -> None:
    """Count stuck tests; print the stack if the process is terminated anyway."""
    config.stash[_stuck] = 0
    faulthandler.register(signal.SIGTERM, chain=True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Run the test under a ``SIGALRM`` timer; stop the session after ``MAX_STUCK`` tests ran past it.

    A project that has pytest-timeout (plugin name ``timeout``) keeps its own limits: both would use
    ``SIGALRM``, and ours would silently replace its timer.
    """
    limit = float(item.config.getoption(OPTION))
    if limit <= 0 or item.config.pluginmanager.hasplugin("timeout"):
        yield
        return

    def expire(_signum: int, _frame: FrameType | None) -> None:
        __tracebackhide__ = True  # the traceback ends in the looping code, not here
        raise TestRanTooLong(f"the test ran longer than {limit:g} s (stopped by chrysalis: an endless loop?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        outcome = yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    excinfo = outcome.excinfo
    if excinfo is not None and excinfo[0] is TestRanTooLong:
        item.config.stash[_stuck] += 1
        if item.config.stash[_stuck] >= MAX_STUCK:
            item.session.shouldstop = f"{MAX_STUCK} tests ran longer than {limit:g} s"
