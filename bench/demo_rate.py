"""The demo's success rate: `make demo`'s task N times on the embedded model, each run in a fresh copy.

Each run is ``examples/run_demo.py``'s: copy ``examples/buggy-calc`` (``subtract`` adds), run
``chrysalis run "make the failing test pass" --level 3 --yes`` on ``--model``, then run the tests. A
run counts when the tests pass **and** the diff is one line (one removed, one added): the fix a
reviewer would merge. The README's "N of 20" comes from here.

    python bench/demo_rate.py [--runs 20] [--model local:qwen2.5-coder-1.5b]     # or: make demo-rate RUNS=20

Each run has a fresh ``CHRYSALIS_HOME`` (``homes.fresh_home``), as a new user's first ``make demo``
has, and the real weights (``make weights``): no run reads what an earlier one recorded (its success
rate can switch voting on; its memories go into the prompt). About a minute a run on 2 quiet
cores. Writes ``bench/results/demo_rate.json`` after every run (so an interrupted run keeps what it
measured): the model, ``runs``, ``passed`` (tests pass), ``passed_one_line`` (and the diff is one
line), ``mean_seconds``, each run's row, and ``provenance`` (command, commit, date, machine and its
load).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from egress import provenance
from homes import fresh_home

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import run_demo  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "demo_rate.json"
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"

RunOnce = Callable[[str | None, bool], tuple[bool, bool, float]]


def report(model: str, rows: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    """What the runs so far show (``runs`` is how many were asked for)."""
    return {
        "provenance": provenance(),
        "model": model,
        "runs_asked": runs,
        "runs": len(rows),
        "passed": sum(row["passed"] for row in rows),
        "passed_one_line": sum(row["passed"] and row["one_line"] for row in rows),
        "mean_seconds": round(sum(row["seconds"] for row in rows) / len(rows), 1) if rows else None,
        "rule": "a run counts when the tests pass and the diff is one line (one removed, one added)",
        "rows": rows,
    }


def measure(model: str, runs: int, out: Path, run_once: RunOnce = run_demo.run_once) -> dict[str, Any]:
    """Run the demo ``runs`` times, writing ``out`` after each run; the last report."""
    rows: list[dict[str, Any]] = []
    result = report(model, rows, runs)
    for _ in range(runs):
        with fresh_home():
            passed, one_line, seconds = run_once(model, True)
        rows.append({"passed": passed, "one_line": one_line, "seconds": round(seconds, 1)})
        result = report(model, rows, runs)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args()
    if options.runs < 1:
        parser.error(f"--runs must be at least 1, not {options.runs}")
    result = measure(options.model, options.runs, options.out)
    print(
        f"demo success: {result['passed_one_line']}/{result['runs']} runs passed with a one-line diff "
        f"({result['passed']} passed in all), mean {result['mean_seconds']} s per run; wrote {options.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
