"""Multi-step tasks, voting in the agent's loop off and on (issue 35, item 5): finished, false claims, cost.

    python bench/multistep.py [--model local:qwen2.5-coder-1.5b] [--configs none,medium] [--tasks a,b]
        [--time-limit 300] [--resume] [--out bench/results/multistep.json]
    python bench/multistep.py --self-check      # every task: its check fails as given, passes with its solution

Each task (``bench/multistep/tasks/<name>/``) is a small project (``workspace/``), a prompt as a user
would type it (``task.toml``), hidden acceptance tests the agent never sees (``check/``) and a
reference solution (``solution/``, only for ``--self-check``). The tasks were written apart from
the agent's code, to be done in several edits: add a function and its tests, rename across files,
fix two related bugs, thread an option through, move a function, read a new setting.

Each configuration runs every task as a user would type it, in a fresh copy and a fresh
``CHRYSALIS_HOME``: ``chrysalis run PROMPT --json --level 2 --mode code --yes --voting LEVEL``
(``none``: no step is voted but destructive commands; ``medium``: what the default priority votes,
every write and command by 3 candidates, ahead by 2). Then the hidden check runs in the copy.
Half the tasks ask for tests to be written or renamed: as their prompts say so, the run may edit
test files (``Policy.for_task``); the others keep them protected, as a user's run would.

A row: ``finished`` (the hidden check passes), ``claimed`` (the run ended with success), a
``false_claim`` (claimed, and the check fails: must stay 0), tokens, seconds, steps, the votes the
run held and the samples they drew, and what it changed (``diff``, its last 4,000 characters). Each
row records the 1-minute load when it ended (``load_1m``): rows measured beside other work are not
comparable (``--resume --drop-load L`` redoes them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from egress import provenance  # a sibling bench module: bench/ is on the path when the script runs
from homes import fresh_home

BENCH = Path(__file__).resolve().parent
TASKS = BENCH / "multistep" / "tasks"
RESULTS = BENCH / "results" / "multistep.json"

CHECK = ["-m", "pytest", "-q", "-p", "no:cacheprovider"]
DIFF_CHARS = 4000
"""The end of each run's diff kept in its row (``diff``): enough to read what a run did."""


@dataclass(frozen=True)
class Task:
    """One task: its folder, prompt, kind and rough number of edits."""

    name: str
    folder: Path
    prompt: str
    kind: str
    steps: int


def load_tasks(names: list[str] | None = None) -> list[Task]:
    """The tasks under ``bench/multistep/tasks`` (only ``names`` when given), by name."""
    tasks = []
    for folder in sorted(p for p in TASKS.iterdir() if (p / "task.toml").is_file()):
        spec = tomllib.loads((folder / "task.toml").read_text())
        tasks.append(Task(folder.name, folder, spec["prompt"], spec["kind"], int(spec["steps"])))
    if names:
        unknown = set(names) - {t.name for t in tasks}
        if unknown:
            raise SystemExit(f"unknown task(s): {', '.join(sorted(unknown))}; see {TASKS}")
        tasks = [t for t in tasks if t.name in names]
    return tasks


def check_passes(task: Task, workspace: Path) -> bool:
    """The hidden acceptance tests, run from ``workspace`` under the project's own ``pytest.ini``.

    They are copied beside the workspace, not into it: a rename's check looks for the old name in every file there.
    """
    hidden = workspace.parent / "hidden_check"
    shutil.rmtree(hidden, ignore_errors=True)
    shutil.copytree(task.folder / "check", hidden)
    env = {**os.environ, "PYTHONPATH": str(workspace), "PYTHONDONTWRITEBYTECODE": "1"}
    ini = ["-c", str(workspace / "pytest.ini"), "--rootdir", str(workspace)]
    done = subprocess.run(
        [sys.executable, *CHECK, *ini, str(hidden)],
        cwd=workspace,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    return done.returncode == 0


def self_check(tasks: list[Task]) -> int:
    """Each task's check must fail on its workspace and pass (with its visible tests) once its solution is in."""
    bad = 0
    for task in tasks:
        with tempfile.TemporaryDirectory(prefix="chrysalis-multistep-") as folder:
            work = Path(folder) / "work"
            shutil.copytree(task.folder / "workspace", work)
            before = check_passes(task, work)
            shutil.copytree(task.folder / "solution", work, dirs_exist_ok=True)
            visible = subprocess.run([sys.executable, *CHECK], cwd=work, capture_output=True, check=False)
            after = check_passes(task, work) and visible.returncode == 0
        ok = not before and after
        bad += not ok
        print(f"{task.name:32} {task.kind:13} {'ok' if ok else 'BAD'} (check before: {before}, after: {after})")
    return 1 if bad else 0


def attempt(task: Task, model: str, voting: str, time_limit: float, base_url: str | None = None) -> dict[str, Any]:
    """One run of ``task`` at ``voting``, typed as a user would, then its hidden check."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-multistep-") as folder, fresh_home():
        work = Path(folder) / "work"
        shutil.copytree(task.folder / "workspace", work)
        argv = [
            *(
                sys.executable,
                "-m",
                "chrysalis",
                "run",
                task.prompt,
                "--json",
                "--level",
                "2",
                "--mode",
                "code",
                "--yes",
            ),
            *("--model", model, "--voting", voting, "--timeout", f"{time_limit:g}", "--workspace", str(work)),
            *(("--base-url", base_url) if base_url else ()),
        ]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, timeout=time_limit + 120, check=False)
        seconds = time.perf_counter() - started
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        finished = check_passes(task, work)
        diff = workspace_diff(task.folder / "workspace", work)
    final = next((e for e in events if e.get("type") == "final"), None)
    votes = [e for e in events if e.get("type") == "vote"]
    claimed = bool(final and final["success"])
    return {
        "task": task.name,
        "kind": task.kind,
        "voting": voting,
        "finished": finished,
        "claimed": claimed,
        "false_claim": claimed and not finished,
        "exit_code": done.returncode,
        "error": next((e["message"][:300] for e in events if e.get("type") == "error"), None),
        "seconds": round(seconds, 1),
        "steps": final["steps"] if final else None,
        "tokens": (final["input_tokens"] + final["output_tokens"]) if final else None,
        "votes": len(votes),
        "vote_samples": sum(int(v.get("samples", 0)) for v in votes),
        "load_1m": round(os.getloadavg()[0], 2),
        "diff": diff[-DIFF_CHARS:],
    }


def workspace_diff(original: Path, work: Path) -> str:
    """What the run changed, as a unified diff of every text file (new and deleted ones too), for a reader."""
    from chrysalis.tools.base import FileChange
    from chrysalis.tools.diffs import unified_diff

    names = {p.relative_to(root) for root in (original, work) for p in root.rglob("*") if p.is_file()}
    changes = []
    for name in sorted(n for n in names if "__pycache__" not in n.parts and ".pytest_cache" not in n.parts):
        before, after = (_text(root / name) for root in (original, work))
        if before != after:
            changes.append(FileChange(str(name), before, after))
    return "\n".join(unified_diff(changes).lines)


def _text(path: Path) -> str | None:
    """The file's text; None when it does not exist (created or deleted by the run)."""
    try:
        return path.read_text(encoding="utf-8") if path.is_file() else None
    except UnicodeDecodeError:
        return "(binary)\n"


def summarise(rows: list[dict[str, Any]], configs: list[str]) -> dict[str, Any]:
    """Per configuration: tasks finished, false claims, mean tokens and seconds per task."""
    summary: dict[str, Any] = {}
    for config in configs:
        mine = [r for r in rows if r["voting"] == config]
        if not mine:
            continue
        tokens = [r["tokens"] for r in mine if r["tokens"] is not None]
        summary[config] = {
            "tasks": len(mine),
            "finished": sum(r["finished"] for r in mine),
            "false_claims": sum(r["false_claim"] for r in mine),
            "claimed": sum(r["claimed"] for r in mine),
            "tokens_mean": round(sum(tokens) / len(tokens)) if tokens else None,
            "seconds_mean": round(sum(r["seconds"] for r in mine) / len(mine), 1),
            "seconds_max": max(r["seconds"] for r in mine),
            "votes": sum(r["votes"] for r in mine),
            "vote_samples": sum(r["vote_samples"] for r in mine),
        }
    return summary


def main() -> int:
    """Run the configurations over the tasks (or ``--self-check`` them) and write the results file."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible server for --model")
    parser.add_argument("--configs", default="none,medium", help="comma-separated --voting levels")
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: all)")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per run (the run's --timeout)")
    parser.add_argument("--resume", action="store_true", help="keep the rows of --out and do only the rest")
    parser.add_argument("--drop-load", type=float, default=None, help="with --resume: redo rows measured above it")
    parser.add_argument("--self-check", action="store_true", help="check the tasks against their solutions")
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args()
    tasks = load_tasks([n for n in options.tasks.split(",") if n] or None)
    if options.self_check:
        return self_check(tasks)
    configs = [c for c in options.configs.split(",") if c]
    rows: list[dict[str, Any]] = []
    if options.resume and options.out.is_file():
        rows = json.loads(options.out.read_text())["rows"]
        if options.drop_load is not None:
            rows = [r for r in rows if r["load_1m"] <= options.drop_load]
    done = {(r["task"], r["voting"]) for r in rows}
    for task in tasks:  # task by task, both configurations together: the load changes slowly, both see it
        for config in configs:
            if (task.name, config) in done:
                continue
            row = attempt(task, options.model, config, options.time_limit, options.base_url)
            rows.append(row)
            verdict = "FINISHED" if row["finished"] else "FALSE CLAIM" if row["false_claim"] else "failed"
            print(f"{task.name:32} voting={config:7} {verdict:11} {row['seconds']:6.1f} s  {row['votes']} votes")
            write(options, configs, rows)
    write(options, configs, rows)
    print(json.dumps(summarise(rows, configs), indent=1))
    return 0


def write(options: argparse.Namespace, configs: list[str], rows: list[dict[str, Any]]) -> None:
    """The results file: the model, the configurations, the summary, every row and where they came from."""
    options.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "model": options.model,
        "base_url": options.base_url,
        "configs": configs,
        "tasks": len({r["task"] for r in rows}),
        "time_limit_s": options.time_limit,
        "provenance": provenance(),
        "summary": summarise(rows, configs),
        "rows": rows,
    }
    options.out.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
