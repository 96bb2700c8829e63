"""The repair benchmark's bug set: small classic algorithms we wrote, each with its tests and one injected bug.

Each folder of ``bench/bugs/`` holds one correct program ``NAME.py``, its tests ``test_NAME.py`` and
``bug.json``, which names the bug: ``category`` (searching, sorting, graphs, dp, number_theory,
parsing), ``kind`` (off_by_one, wrong_operator, wrong_variable, wrong_constant, missing_base_case,
swapped_arguments), ``fixed`` (the correct line, exactly as in the program, occurring once),
``buggy`` (the line that replaces it, or ``null`` when the bug deletes it) and a ``description``.
The programs are ours, written for this benchmark; nothing is copied from public bug benchmarks.

Keeping the correct program and injecting the bug at run time makes the set easy to read and to
check: ``python bench/repair_bugs.py`` verifies that every program passes its tests and every buggy
version fails them, and prints the set's make-up.

A fix is **clean** when its diff against the buggy program touches only the bug's line: it replaces
that line (or, for a deleted line, inserts at most two lines where it was), and changes nothing else.
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

BUGS = Path(__file__).parent / "bugs"
HELDOUT = Path(__file__).parent / "bugs_heldout"
SETS = {"dev": BUGS, "heldout": HELDOUT}
"""The development set (repair was built and tuned on it) and the held-out set (written apart, never tuned on)."""
KINDS = ("off_by_one", "wrong_operator", "wrong_variable", "wrong_constant", "missing_base_case", "swapped_arguments")
CATEGORIES = ("searching", "sorting", "graphs", "dp", "number_theory", "parsing")
PYTEST_INI = "[pytest]\npythonpath = .\n"
TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"


class BugSetError(ValueError):
    """A bug folder that does not describe a one-line bug in its program."""


@dataclass(frozen=True)
class Bug:
    """One program with one injected bug."""

    name: str
    category: str
    kind: str
    description: str
    correct: str
    """The correct program's text."""
    tests: str
    line: int
    """The 1-based line of the correct program that the bug replaces or deletes."""
    fixed: str
    buggy: str | None
    folder: Path = BUGS
    """Where it lives: its ``differential.py`` (never copied into a workspace) judges a fix correct."""

    @property
    def program(self) -> str:
        """The program's file name (``NAME.py``)."""
        return f"{self.name}.py"

    @property
    def test_file(self) -> str:
        """The tests' path inside a workspace."""
        return f"tests/test_{self.name}.py"

    def buggy_text(self) -> str:
        """The program with the bug injected."""
        lines = self.correct.splitlines(keepends=True)
        lines[self.line - 1 : self.line] = [] if self.buggy is None else [self.buggy + "\n"]
        return "".join(lines)

    def materialise(self, root: Path, *, correct: bool = False) -> Path:
        """Write a workspace (the buggy program, ``tests/``, ``pytest.ini``) under ``root``; returns it."""
        root.mkdir(parents=True, exist_ok=True)
        (root / self.program).write_text(self.correct if correct else self.buggy_text(), encoding="utf-8")
        (root / "tests").mkdir(exist_ok=True)
        (root / self.test_file).write_text(self.tests, encoding="utf-8")
        (root / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
        return root

    def is_clean(self, patched: str) -> bool:
        """Whether ``patched`` differs from the buggy program only at the bug's line."""
        buggy = self.buggy_text().splitlines()
        after = patched.splitlines()
        changes = [
            op for op in difflib.SequenceMatcher(None, buggy, after, autojunk=False).get_opcodes() if op[0] != "equal"
        ]
        if len(changes) != 1:
            return False
        tag, start, end, new_start, new_end = changes[0]
        at = self.line - 1
        if self.buggy is None:
            return tag == "insert" and start == end == at and new_end - new_start <= 2
        return tag == "replace" and (start, end) == (at, at + 1) and new_end - new_start == 1

    def is_exact(self, patched: str) -> bool:
        """Whether ``patched`` is the original program (trailing spaces aside)."""
        return [line.rstrip() for line in patched.splitlines()] == [line.rstrip() for line in self.correct.splitlines()]


def load(name: str, root: Path = BUGS) -> Bug:
    """The bug in ``root/name``.

    Raises:
        BugSetError: ``bug.json`` is missing a field, names an unknown kind or category, or its
            ``fixed`` line does not occur exactly once in the program.
    """
    folder = root / name
    meta = json.loads((folder / "bug.json").read_text(encoding="utf-8"))
    missing = {"category", "kind", "fixed", "buggy", "description"} - set(meta)
    if missing:
        raise BugSetError(f"{folder / 'bug.json'}: missing {', '.join(sorted(missing))}")
    dev_labels = meta["kind"] in KINDS and meta["category"] in CATEGORIES
    if root == BUGS and not dev_labels:  # the held-out set's labels are checked by differential.py
        raise BugSetError(f"{folder / 'bug.json'}: kind {meta['kind']!r} or category {meta['category']!r} unknown")
    correct = (folder / f"{name}.py").read_text(encoding="utf-8")
    lines = correct.splitlines()
    hits = [i for i, line in enumerate(lines, 1) if line == meta["fixed"]]
    if len(hits) != 1:
        raise BugSetError(f"{folder / 'bug.json'}: the fixed line occurs {len(hits)} times in {name}.py, not once")
    return Bug(
        name=name,
        category=meta["category"],
        kind=meta["kind"],
        description=meta["description"],
        correct=correct,
        tests=(folder / f"test_{name}.py").read_text(encoding="utf-8"),
        line=hits[0],
        fixed=meta["fixed"],
        buggy=meta["buggy"],
        folder=folder,
    )


def load_all(root: Path = BUGS) -> list[Bug]:
    """Every bug in ``root``, by name."""
    return [load(folder.name, root) for folder in sorted(root.iterdir()) if (folder / "bug.json").is_file()]


def suite_passes(workspace: Path, timeout: float = 60.0) -> bool:
    """Whether the workspace's tests pass (a run past ``timeout`` seconds counts as failing)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x"],
            cwd=workspace,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


_FAILED = ("FAILED ", "ERROR ")


def _failing_files(bugs: list[Bug], *, correct: bool, timeout: float) -> set[str]:
    """The bugs whose tests fail, from one pytest run over all of them side by side (names are unique)."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-bugs-") as tmp:
        for bug in bugs:
            bug.materialise(Path(tmp), correct=correct)
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    failed = {line.split()[1].partition("::")[0] for line in done.stdout.splitlines() if line.startswith(_FAILED)}
    return {bug.name for bug in bugs if bug.test_file in failed}  # -rfE's summary only: --durations names tests too


def check(bugs: list[Bug], timeout: float = 300.0) -> list[str]:
    """Problems with the set: a correct program that fails its tests, or a bug the tests miss."""
    broken = _failing_files(bugs, correct=True, timeout=timeout)
    caught = _failing_files(bugs, correct=False, timeout=timeout)
    return [f"{name}: the correct program fails its tests" for name in sorted(broken)] + [
        f"{bug.name}: the tests pass on the buggy program" for bug in bugs if bug.name not in caught
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description="Check the repair benchmark's bug set.")
    parser.add_argument("names", nargs="*", help="bugs to check (default: all)")
    options = parser.parse_args()
    bugs = [load(name) for name in options.names] if options.names else load_all()
    problems = check(bugs)
    kinds, categories = Counter(b.kind for b in bugs), Counter(b.category for b in bugs)
    print(f"{len(bugs)} bugs")
    print("kinds:      " + ", ".join(f"{k} {kinds[k]}" for k in KINDS))
    print("categories: " + ", ".join(f"{c} {categories[c]}" for c in CATEGORIES))
    for problem in problems:
        print("PROBLEM", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
