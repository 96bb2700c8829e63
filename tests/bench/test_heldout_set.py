"""The held-out bug set is frozen: written apart from repair, committed once, never edited, never tuned on.

Issue 33: repair's own set and its templates were tuned against each other, so its figures say
little about bugs repair was not built on. ``bench/bugs_heldout/`` was written by helpers who had
not read ``src/chrysalis/repair/`` or ``bench/bugs/``. Any change to its files changes the hash below
and fails this test: the set may only be replaced whole, as a new set, with the reason in its commit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from tests.helpers import BENCH, load_bench_module

HELDOUT = BENCH / "bugs_heldout"
FROZEN_SHA256 = "272513de43a16097ea2db19b52ed0ec646c68b38d55387b3b659fa5322afaadf"
"""Of every file's path and bytes, in path order (caches left out); pinned at the set's first commit."""


def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def test_the_held_out_set_is_as_it_was_committed() -> None:
    assert _digest(HELDOUT) == FROZEN_SHA256, "bench/bugs_heldout changed: it is frozen (see this test's docstring)"


def test_the_held_out_set_has_sixty_bugs_the_repair_bench_can_load() -> None:
    bugs_module = load_bench_module("repair_bugs")
    bench = load_bench_module("repair")
    bugs = bugs_module.load_all(bugs_module.HELDOUT)
    assert len(bugs) >= 60
    assert {bench.set_of(bug) for bug in bugs} == {"heldout"}
    assert not {bug.correct for bug in bugs} & {bug.correct for bug in bugs_module.load_all()}  # no dev program
    assert all((bug.folder / "differential.py").is_file() for bug in bugs)
