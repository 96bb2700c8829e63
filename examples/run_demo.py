"""The `make demo` script: copy the buggy calculator to a temp folder, let the agent fix it, show the result.

Runs the real `chrysalis` command on the embedded model (level 3 so it can run the tests, --yes so
nobody has to approve), then prints the diff it made and the test result. Exit code 0 when the
tests pass afterwards. `--runs N` repeats it and prints the success rate (how the README's
figure is measured): a run succeeds when the tests pass and the diff is one line (one removed, one
added), the fix a reviewer would merge; `--model` picks another model.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent / "buggy-calc"
TASK = "make the failing test pass"


def _git(workspace: Path, *args: str) -> str:
    env_args = ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid"]
    done = subprocess.run(["git", *env_args, *args], cwd=workspace, capture_output=True, text=True, check=True)
    return done.stdout


def _tests_pass(workspace: Path) -> tuple[bool, str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=workspace, capture_output=True, text=True
    )
    return done.returncode == 0, (done.stdout + done.stderr).strip().splitlines()[-1]


def changed_lines(diff: str) -> tuple[int, int]:
    """(removed, added) lines of a unified diff, headers aside."""
    lines = diff.splitlines()
    removed = sum(line.startswith("-") and not line.startswith("---") for line in lines)
    added = sum(line.startswith("+") and not line.startswith("+++") for line in lines)
    return removed, added


def run_once(model: str | None, quiet: bool) -> tuple[bool, bool, float]:
    """One demo run in a fresh copy; returns (tests pass afterwards, the diff is one line, seconds)."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-demo-") as tmp:
        workspace = Path(tmp) / "buggy-calc"
        shutil.copytree(EXAMPLE, workspace)
        _git(workspace, "init", "-q")
        _git(workspace, "add", "-A")
        _git(workspace, "commit", "-q", "-m", "start")
        command = ["chrysalis", "run", TASK, "--level", "3", "--yes", "--workspace", str(workspace)]
        if model:
            command += ["--model", model]
        print(f"$ {' '.join(command[:2])} {TASK!r} {' '.join(command[3:])}\n", flush=True)
        started = time.perf_counter()
        chrysalis = Path(sys.executable).with_name("chrysalis")
        command[0] = str(chrysalis) if chrysalis.exists() else command[0]
        subprocess.run(command, stdout=subprocess.DEVNULL if quiet else None)
        seconds = time.perf_counter() - started
        diff = _git(workspace, "diff")
        print("\n--- the agent's change ---")
        print(diff or "(no change)")
        passed, summary = _tests_pass(workspace)
        one_line = changed_lines(diff) == (1, 1)
        shape = "a one-line diff" if one_line else "a diff of -{} +{} lines".format(*changed_lines(diff))
        print(f"--- tests: {summary} ({'PASS' if passed else 'FAIL'}), {shape}, in {seconds:.1f} s ---\n", flush=True)
        return passed, one_line, seconds


def main() -> int:
    """Run the demo once (or --runs N times) and report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--model", default=None)
    parser.add_argument("--quiet", action="store_true", help="hide the agent's own output")
    options = parser.parse_args()
    results = [run_once(options.model, options.quiet) for _ in range(options.runs)]
    passed = sum(ok for ok, _, _ in results)
    clean = sum(ok and one_line for ok, one_line, _ in results)
    if options.runs > 1:
        mean = sum(seconds for _, _, seconds in results) / len(results)
        print(
            f"demo success: {clean}/{options.runs} runs passed with a one-line diff "
            f"({passed} passed in all), mean {mean:.1f} s per run"
        )
    return 0 if passed == options.runs else 1


if __name__ == "__main__":
    sys.exit(main())
