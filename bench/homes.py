"""A fresh ``CHRYSALIS_HOME`` for each attempt of a benchmark, with the real weights.

An attempt must not read what earlier attempts recorded: the eval store's success rate switches
voting on (``low_success_rate``), memories go into the prompt, traces fill the database. One home
for a whole run made each attempt depend on the ones before it (the repair bench's ``loop@none``
voted at every step after three failures, before 2026-11-28). The weights stay where they are:
``$CHRYSALIS_MODEL_CACHE``, or the real home's ``models/``.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator

from chrysalis.config import chrysalis_home
from chrysalis.llm.local.weights import MODEL_CACHE_ENV


@contextlib.contextmanager
def fresh_home() -> Iterator[str]:
    """Set ``CHRYSALIS_HOME`` to a new empty folder (also for subprocesses) until the block ends; its path."""
    os.environ.setdefault(MODEL_CACHE_ENV, str(chrysalis_home() / "models"))
    before = os.environ.get("CHRYSALIS_HOME")
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-home-") as home:
        os.environ["CHRYSALIS_HOME"] = home
        try:
            yield home
        finally:
            if before is None:
                os.environ.pop("CHRYSALIS_HOME", None)
            else:
                os.environ["CHRYSALIS_HOME"] = before
