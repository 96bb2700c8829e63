"""Differential checking of a repaired program against its bug's reference, and the check of a bug set.

Tests say a fix is right on the examples a developer thought of. The differential check asks more:
does the candidate behave as the reference program on hundreds of random inputs? Each bug folder
holds ``differential.py``, never shown to repair, with ``trial(module, rng)``: it draws inputs from
``rng``, exercises the module's public API and returns a plain value (None, bool, int, float, str and
lists, tuples and dicts of them). Trial ``i`` runs on the reference and on the candidate with
``random.Random(seed + i)``; the outcomes are that value, or the name of the exception it raised.

Outcomes compare strictly: types must match at every level (``2.0`` is not ``2``, ``True`` is not
``1``, a tuple is not a list), and floats within a relative 1e-9. Both programs run in one
subprocess (``python -I``, which does not import chrysalis): a candidate may loop forever or call
``sys.exit``. The subprocess reports each trial as it finishes; past ``timeout_s`` it is killed with
its process group, and the trial it was on counts as a disagreement (``timed_out``).

A bug set is a folder of bug folders, each holding ``NAME.py`` (the correct program), ``test_NAME.py``
and ``bug.json`` (category, kind, pattern, symptom, fixed, buggy, description), and ``differential.py``.

    python bench/differential.py [SET_DIR] [--trials 500] [--only NAME ...] [--test-timeout 60]

checks every bug folder of SET_DIR (default bench/bugs_heldout): bug.json is valid, the reference
passes its tests and the buggy program fails them, the reference agrees with itself and the buggy
program disagrees with it. It prints a table and the set's make-up, and exits 1 if any bug is invalid.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

HELDOUT = Path(__file__).resolve().parent / "bugs_heldout"

CATEGORIES = (
    "data_structures",
    "classes",
    "generators",
    "parsing",
    "text",
    "numeric",
    "recursion",
    "graphs",
    "dp",
    "scheduling",
    "bits",
    "dates",
)
KINDS = ("missing_logic", "excess_logic", "value_misuse", "operator_misuse", "variable_misuse", "function_misuse")
"""HumanEvalFix's bug types."""
PATTERNS = (
    "change_identifier",
    "change_binary_operator",
    "change_unary_operator",
    "change_numeric_literal",
    "change_boolean_literal",
    "change_string_literal",
    "change_container_literal",
    "change_operand",
    "more_specific_if",
    "less_specific_if",
    "negate_condition",
    "wrong_function_name",
    "change_caller",
    "swap_arguments",
    "add_argument",
    "remove_argument",
    "wrong_attribute",
    "wrong_method_same_object",
    "change_return_value",
    "missing_guard",
    "missing_base_case",
    "range_bound",
    "slice_bound",
    "wrong_builtin",
    "integer_division",
    "missing_increment",
)
"""Fix patterns from the ManySStuBs4J, TBar and PraPR families."""
SYMPTOMS = ("wrong_result", "raises", "loops_forever", "wrong_type")
FIELDS = ("category", "kind", "pattern", "symptom", "fixed", "buggy", "description")
PROGRAM_LINES = (25, 120)
TEST_COUNT = (4, 12)
PYTEST_INI = "[pytest]\npythonpath = .\n"
TEST_TIMEOUT_S = 60.0
REPR_LIMIT = 160
MEMORY_LIMIT = 2**30
"""The worker's address space, in bytes."""


@dataclass(frozen=True)
class DifferentialVerdict:
    """How a candidate program compares with the reference over random trials."""

    agrees: bool
    """No trial disagreed and none timed out."""
    trials: int
    """Trials compared: those both programs finished, plus the one cut by a timeout."""
    disagreements: int
    first: str | None
    """The first disagreeing trial: its index, the reference's outcome and the candidate's (shortened)."""
    timed_out: bool


class DifferentialError(RuntimeError):
    """The bug folder itself is broken: its reference or its differential.py fails to load or run."""


# -- The worker: runs inside the subprocess, stdlib only -------------------------------------------


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    return module


def _outcome(trial: Any, module: ModuleType | BaseException, seed: int) -> tuple[str, Any]:
    """``("value", v)`` or ``("raises", TypeName)``; a module that failed to import raises on every trial."""
    if isinstance(module, BaseException):
        return ("raises", type(module).__name__)
    random.seed(seed)  # a program that uses the global generator stays deterministic
    try:
        return ("value", trial(module, random.Random(seed)))
    except BaseException as exc:  # SystemExit and KeyboardInterrupt are outcomes too
        return ("raises", type(exc).__name__)


def difference(reference: Any, candidate: Any) -> str | None:
    """None when the two values are the same; else ``"type"`` or ``"value"``, what differs first."""
    if type(reference) is not type(candidate):
        return "type"
    if isinstance(reference, float):
        same = reference == candidate or (math.isnan(reference) and math.isnan(candidate))
        return None if same or math.isclose(reference, candidate, rel_tol=1e-9, abs_tol=1e-12) else "value"
    if isinstance(reference, list | tuple):
        for left, right in zip(reference, candidate, strict=False):
            found = difference(left, right)
            if found:
                return found
        return None if len(reference) == len(candidate) else "value"
    if isinstance(reference, dict):
        if reference.keys() != candidate.keys():
            return "value"
        for key in reference:
            found = difference(reference[key], candidate[key])
            if found:
                return found
        return None
    return None if reference == candidate else "value"


def _compare(reference: tuple[str, Any], candidate: tuple[str, Any]) -> str | None:
    if reference[0] != candidate[0]:
        return "raises" if candidate[0] == "raises" else "value"
    if reference[0] == "raises":
        return None if reference[1] == candidate[1] else "raises"
    try:
        return difference(reference[1], candidate[1])
    except Exception:  # a candidate's value whose __eq__ breaks is not the reference's
        return "value"


def _short(outcome: tuple[str, Any]) -> str:
    try:
        text = f"raises {outcome[1]}" if outcome[0] == "raises" else repr(outcome[1])
    except Exception as exc:  # a broken __repr__ must not stop the check
        text = f"<unprintable: {type(exc).__name__}>"
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 3] + "..."


def _limit_memory(limit: int) -> None:
    """Cap the address space: a candidate that loops while it appends fails with MemoryError, not the machine."""
    try:
        import resource  # POSIX only

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass


def _worker(spec: dict[str, Any]) -> int:
    """Run the trials; one JSON line per trial on the saved stdout, the programs' prints go nowhere."""
    _limit_memory(MEMORY_LIMIT)
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # lives as long as the process

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record) + "\n")
        out.flush()

    try:
        trial = _load("_differential", Path(spec["differential"])).trial
        reference = _load("_reference", Path(spec["reference"]))
    except BaseException as exc:  # reported to the parent, which raises
        emit({"error": f"{type(exc).__name__}: {exc}"})
        return 2
    candidate: ModuleType | BaseException
    try:
        candidate = _load("_candidate", Path(spec["candidate"]))
    except BaseException as exc:  # a candidate that does not import raises on every trial
        candidate = exc
    seed = spec["seed"]
    for index in range(spec["trials"]):
        expected = _outcome(trial, reference, seed + index)
        got = _outcome(trial, candidate, seed + index)
        why = _compare(expected, got)
        record: dict[str, Any] = {"i": index, "why": why}
        if why:
            record.update(reference=_short(expected), candidate=_short(got))
        emit(record)
    emit({"done": True})
    return 0


# -- The parent ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialRecord:
    """One compared trial: ``why`` is None (same), "value", "type", "raises" or "timeout"."""

    index: int
    why: str | None
    reference: str = ""
    candidate: str = ""


def _run_group(command: list[str], cwd: Path, timeout_s: float) -> tuple[str, str, bool]:
    """Run ``command`` in its own process group: its stdout, its stderr, and whether the timeout killed it."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            return stdout, stderr, True
    return stdout, stderr, False


def run_trials(
    bug_dir: Path, candidate_source: str, trials: int = 500, seed: int = 0, timeout_s: float = 20.0
) -> tuple[list[TrialRecord], bool]:
    """Each trial's comparison in order, and whether the run was cut by the timeout.

    Raises:
        DifferentialError: the reference or differential.py fails to import (a candidate that
            fails to import raises that error on every trial).
    """
    bug_dir = bug_dir.resolve()
    with tempfile.TemporaryDirectory(prefix="chrysalis-differential-") as tmp:
        candidate = Path(tmp) / f"{bug_dir.name}.py"
        candidate.write_text(candidate_source, encoding="utf-8")
        spec = {
            "reference": str(bug_dir / f"{bug_dir.name}.py"),
            "differential": str(bug_dir / "differential.py"),
            "candidate": str(candidate),
            "trials": trials,
            "seed": seed,
        }
        command = [sys.executable, "-I", str(Path(__file__).resolve()), "--worker", json.dumps(spec)]
        stdout, stderr, timed_out = _run_group(command, Path(tmp), timeout_s)
    records: list[TrialRecord] = []
    done = False
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:  # the last line, cut by the kill
            continue
        if "error" in message:
            raise DifferentialError(f"{bug_dir.name}: {message['error']}")
        if message.get("done"):
            done = True
            continue
        records.append(
            TrialRecord(message["i"], message["why"], message.get("reference", ""), message.get("candidate", ""))
        )
    if not done and len(records) < trials:
        # Cut by the timeout, or the process ended early (os._exit, a crash): the trial it was on disagrees.
        last = stderr.strip().splitlines()[-1:] or ["no output"]
        cause = f"timed out after {timeout_s:g} s" if timed_out else f"the process ended early ({last[0][:REPR_LIMIT]})"
        records.append(TrialRecord(len(records), "timeout" if timed_out else "value", candidate=cause))
    return records, timed_out


def differential_check(
    bug_dir: Path, candidate_source: str, trials: int = 500, seed: int = 0, timeout_s: float = 20.0
) -> DifferentialVerdict:
    """Whether ``candidate_source`` behaves as ``bug_dir/NAME.py`` on ``trials`` random trials of its differential.py.

    Raises:
        DifferentialError: the bug folder's reference or differential.py is broken.
    """
    records, timed_out = run_trials(bug_dir, candidate_source, trials, seed, timeout_s)
    disagreeing = [record for record in records if record.why]
    first = None
    if disagreeing:
        one = disagreeing[0]
        first = (
            f"trial {one.index}: reference {one.reference}, candidate {one.candidate}"
            if one.reference
            else f"trial {one.index}: {one.candidate}"
        )
    return DifferentialVerdict(
        agrees=not disagreeing and not timed_out,
        trials=len(records),
        disagreements=len(disagreeing),
        first=first,
        timed_out=timed_out,
    )


# -- The set check --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BugCheck:
    """One bug folder's verdict: the problems found, and what each column of the table says."""

    name: str
    meta: dict[str, Any]
    problems: tuple[str, ...]
    tests_ok: bool
    differential_ok: bool
    buggy_tests: SuiteRun | None = None
    """The buggy program's test run (how many tests it fails)."""


def validate_meta(folder: Path) -> tuple[dict[str, Any], list[str]]:
    """bug.json's fields, and what is wrong with the folder's files and its bug.json."""
    name = folder.name
    problems = [
        f"missing {file}"
        for file in (f"{name}.py", f"test_{name}.py", "bug.json", "differential.py")
        if not (folder / file).is_file()
    ]
    if problems:
        return {}, problems
    try:
        meta = json.loads((folder / "bug.json").read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return {}, [f"bug.json: {exc}"]
    if not isinstance(meta, dict):
        return {}, ["bug.json: not an object"]
    problems += [f"bug.json: missing {field!r}" for field in FIELDS if field not in meta]
    problems += [f"bug.json: unknown field {field!r}" for field in meta if field not in FIELDS]
    for field, allowed in (("category", CATEGORIES), ("kind", KINDS), ("pattern", PATTERNS), ("symptom", SYMPTOMS)):
        if field in meta and meta[field] not in allowed:
            problems.append(f"bug.json: {field} {meta[field]!r} is not one of {', '.join(allowed)}")
    for field in ("fixed", "description"):
        if not isinstance(meta.get(field, ""), str) or not meta.get(field):
            problems.append(f"bug.json: {field} must be a non-empty string")
    buggy = meta.get("buggy")
    if buggy is not None and (not isinstance(buggy, str) or "\n" in buggy or buggy == meta.get("fixed")):
        problems.append("bug.json: buggy must be null or one line that differs from fixed")
    source = (folder / f"{name}.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    hits = sum(line == meta.get("fixed") for line in lines)
    if hits != 1:
        problems.append(f"bug.json: the fixed line occurs {hits} times in {name}.py, not once")
    if not PROGRAM_LINES[0] <= len(lines) <= PROGRAM_LINES[1]:
        problems.append(f"{name}.py has {len(lines)} lines, not {PROGRAM_LINES[0]}-{PROGRAM_LINES[1]}")
    tests = _count_tests((folder / f"test_{name}.py").read_text(encoding="utf-8"))
    if not TEST_COUNT[0] <= tests <= TEST_COUNT[1]:
        problems.append(f"test_{name}.py has {tests} tests, not {TEST_COUNT[0]}-{TEST_COUNT[1]}")
    return meta, problems


def _count_tests(source: str) -> int:
    tree = ast.parse(source)
    bodies = [tree.body] + [
        node.body for node in tree.body if isinstance(node, ast.ClassDef) and node.name.startswith("Test")
    ]
    return sum(isinstance(node, ast.FunctionDef) and node.name.startswith("test") for body in bodies for node in body)


def buggy_source(folder: Path, meta: dict[str, Any]) -> str:
    """NAME.py with its ``fixed`` line replaced by ``buggy`` (or deleted when buggy is null)."""
    lines = (folder / f"{folder.name}.py").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.rstrip("\r\n") == meta["fixed"])
    lines[at : at + 1] = [] if meta["buggy"] is None else [meta["buggy"] + "\n"]
    return "".join(lines)


@dataclass(frozen=True)
class SuiteRun:
    """One pytest run of a bug's tests: how many failed of how many, and whether it was cut by the timeout."""

    failed: int
    total: int
    timed_out: bool

    @property
    def passed(self) -> bool:
        """Every test passed, within the timeout."""
        return not self.failed and not self.timed_out and self.total > 0

    def __str__(self) -> str:
        return "timeout" if self.timed_out else f"{self.failed}/{self.total}"


def run_tests(folder: Path, program_source: str, timeout_s: float = TEST_TIMEOUT_S) -> SuiteRun:
    """test_NAME.py on ``program_source``, in a temporary copy with a pytest.ini that puts it on the path."""
    name = folder.name
    with tempfile.TemporaryDirectory(prefix="chrysalis-heldout-") as tmp:
        root = Path(tmp)
        (root / f"{name}.py").write_text(program_source, encoding="utf-8")
        shutil.copyfile(folder / f"test_{name}.py", root / f"test_{name}.py")
        (root / "pytest.ini").write_text(PYTEST_INI, encoding="utf-8")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        stdout, _, timed_out = _run_group(command, root, timeout_s)
    if timed_out:
        return SuiteRun(failed=1, total=1, timed_out=True)
    counts = {word: int(number) for number, word in re.findall(r"(\d+) (failed|passed|errors?)", stdout)}
    failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    total = failed + counts.get("passed", 0)
    if not total:  # it could not even collect: a failure
        return SuiteRun(failed=1, total=1, timed_out=False)
    return SuiteRun(failed=failed, total=total, timed_out=False)


def _symptom_problem(symptom: str, records: list[TrialRecord], timed_out: bool) -> str | None:
    """Whether what the differential saw fits the declared symptom (loosely: a slip may show several)."""
    seen = {record.why for record in records if record.why}
    if (symptom == "loops_forever") != timed_out:
        return f"symptom {symptom!r}, but the buggy program {'timed out' if timed_out else 'never timed out'}"
    if symptom == "raises" and "raises" not in seen:
        return "symptom 'raises', but the buggy program never raised where the reference did not"
    if symptom == "wrong_type" and "type" not in seen:
        return "symptom 'wrong_type', but no result of the buggy program differed in type"
    return None


def check_bug(folder: Path, trials: int = 500, seed: int = 0, test_timeout_s: float = TEST_TIMEOUT_S) -> BugCheck:
    """Every check on one bug folder."""
    meta, problems = validate_meta(folder)
    if problems:
        return BugCheck(folder.name, meta, tuple(problems), tests_ok=False, differential_ok=False)
    reference = (folder / f"{folder.name}.py").read_text(encoding="utf-8")
    buggy = buggy_source(folder, meta)
    passing, failing = run_tests(folder, reference, test_timeout_s), run_tests(folder, buggy, test_timeout_s)
    problems += [] if passing.passed else [f"the reference fails its tests ({passing})"]
    problems += [] if not failing.passed else ["the buggy program passes the tests"]
    differential_ok = False
    try:
        itself = differential_check(folder, reference, trials, seed)
        records, timed_out = run_trials(folder, buggy, trials, seed)
    except DifferentialError as exc:
        problems.append(f"differential: {exc}")
    else:
        if not itself.agrees:
            problems.append(
                f"the reference disagrees with itself: {itself.first} (is trial deterministic, and does it"
                " return plain values: None, bool, int, float, str, and lists, tuples and dicts of them?)"
            )
        if not any(record.why for record in records):
            problems.append(f"the buggy program agrees with the reference on {trials} trials")
        symptom = _symptom_problem(meta["symptom"], records, timed_out)
        problems += [symptom] if symptom else []
        differential_ok = itself.agrees and any(record.why for record in records) and symptom is None
    tests_ok = passing.passed and not failing.passed
    return BugCheck(folder.name, meta, tuple(problems), tests_ok, differential_ok, failing)


def bug_folders(set_dir: Path) -> list[Path]:
    """The set's bug folders, by name."""
    return sorted(p for p in set_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))


def _print_report(checks: list[BugCheck]) -> None:
    header = ("name", "category", "kind", "pattern", "symptom", "tests ok", "buggy fails", "differential ok")
    rows = [
        (
            c.name,
            *(str(c.meta.get(field, "?")) for field in ("category", "kind", "pattern", "symptom")),
            _yes(c.tests_ok),
            str(c.buggy_tests or "-"),
            _yes(c.differential_ok),
        )
        for c in checks
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    valid = [c for c in checks if not c.problems]
    print(f"\n{len(valid)} of {len(checks)} bugs valid")
    for field, allowed in (("category", CATEGORIES), ("kind", KINDS), ("pattern", PATTERNS), ("symptom", SYMPTOMS)):
        counts = Counter(c.meta.get(field) for c in checks)
        label = "categories:" if field == "category" else f"{field}s:"
        print(f"{label:12}" + ", ".join(f"{value} {counts[value]}" for value in allowed if counts[value]))
    for check in checks:
        for problem in check.problems:
            print(f"PROBLEM {check.name}: {problem}")


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def main(argv: list[str] | None = None) -> int:
    """Check a bug set; 0 when every bug is valid, else 1."""
    parser = argparse.ArgumentParser(description="Check a held-out repair bug set, tests and differential.")
    parser.add_argument(
        "set_dir", nargs="?", type=Path, default=HELDOUT, help="the set's folder (default: %(default)s)"
    )
    parser.add_argument("--trials", type=int, default=500, help="random trials per differential check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME", help="check only these bugs")
    parser.add_argument(
        "--test-timeout", type=float, default=TEST_TIMEOUT_S, help="seconds for one pytest run (default: %(default)s)"
    )
    options = parser.parse_args(argv)
    if not options.set_dir.is_dir():
        print(f"no such folder: {options.set_dir}", file=sys.stderr)
        return 1
    folders = bug_folders(options.set_dir)
    if options.only:
        folders = [folder for folder in folders if folder.name in options.only]
    if not folders:
        print(f"no bug folders in {options.set_dir}", file=sys.stderr)
        return 1
    checks = [check_bug(folder, options.trials, options.seed, options.test_timeout) for folder in folders]
    _print_report(checks)
    return 1 if any(check.problems for check in checks) else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        sys.exit(_worker(json.loads(sys.argv[2])))
    sys.exit(main())
