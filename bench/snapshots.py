"""The cost of undo for commands: the shadow-git snapshots taken around each shell command.

A workspace of ``--files`` source files (default 2,000, 40 folders of 50, a few KB each, committed
to git) gets the same small command over and over, ``sed -i`` on one file, run the way the toolset
runs it: inside ``CheckpointStore.around_command`` (HEAD read, snapshot, row written; command;
snapshot, HEAD read, row updated). Measured, as medians over ``--repeats`` rounds, each alone:

- ``git status --porcelain`` in the workspace, the yardstick: what a developer's prompt pays per line;
- the command alone (``bash -c "sed -i ..."``);
- the command inside ``around_command``; the overhead is the difference;
- one warm snapshot with nothing changed, and one after a file changed (the stat cache at work);
- the first snapshot of the workspace (empty shadow store: every file hashed once);
- ``undo`` of a run of one such command.

Ratios are to ``git status`` and to the command alone, measured in the same run, because these
machines are noisy (2 shared cores here).

    python bench/snapshots.py [--files 2000] [--repeats 15]

Writes bench/results/snapshots.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chrysalis.stores import Stores
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "snapshots.json"
FILES_PER_FOLDER = 50
COMMAND = "sed -i 's/value = [0-9]*/value = {n}/' pkg0/mod0.py"


def make_workspace(root: Path, files: int) -> Path:
    """``files`` Python files in folders of ``FILES_PER_FOLDER``, committed to a fresh git repository."""
    ws = root / "ws"
    for n in range(files):
        folder = ws / f"pkg{n // FILES_PER_FOLDER}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def f{k}(x):\n    return x * {k}\n\n" for k in range(40 + n % 60))
        (folder / f"mod{n % FILES_PER_FOLDER}.py").write_text(f"value = {n}\n{body}")
    (ws / ".gitignore").write_text("__pycache__/\n.venv/\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run([*git, *args], cwd=ws, check=True, capture_output=True)
    return ws


def median_ms(action: Callable[[int], object], repeats: int) -> float:
    """Median wall time of ``action(round)`` in milliseconds, after one warm-up round."""
    action(-1)
    times = []
    for n in range(repeats):
        started = time.perf_counter()
        action(n)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def measure(files: int, repeats: int) -> dict[str, Any]:
    """Every row of the benchmark, in milliseconds, plus the ratios."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-bench-snapshots-") as tmp:
        root = Path(tmp)
        ws = make_workspace(root, files)
        with Stores.open(root / "home") as stores:
            cp = stores.checkpoints
            shadow = cp.shadow(ws)

            started = time.perf_counter()
            shadow.snapshot()
            first_ms = (time.perf_counter() - started) * 1000

            def git_status(_n: int) -> None:
                subprocess.run(["git", "status", "--porcelain"], cwd=ws, check=True, capture_output=True)

            def command(n: int) -> None:
                subprocess.run(["bash", "-c", COMMAND.format(n=n)], cwd=ws, check=True, capture_output=True)

            def snapshotted(n: int) -> None:
                with cp.around_command("bench", ws, "shell"):
                    command(n + 100_000)

            def changed_snapshot(n: int) -> None:
                (ws / "pkg1" / "mod1.py").write_text(f"value = {n}\n")
                shadow.snapshot()

            rows = {
                "git_status_ms": median_ms(git_status, repeats),
                "command_ms": median_ms(command, repeats),
                "command_with_snapshots_ms": median_ms(snapshotted, repeats),
                "snapshot_unchanged_ms": median_ms(lambda _n: shadow.snapshot(), repeats),
                "snapshot_one_file_changed_ms": median_ms(changed_snapshot, repeats),
            }

            def undo(n: int) -> None:
                with cp.around_command(f"undo-{n}", ws, "shell"):
                    command(n + 200_000)
                started = time.perf_counter()
                cp.undo(ws, f"undo-{n}")
                undo_times.append((time.perf_counter() - started) * 1000)

            undo_times: list[float] = []
            for n in range(max(3, repeats // 3)):
                undo(n)
            rows["undo_one_command_ms"] = statistics.median(undo_times)
    overhead = rows["command_with_snapshots_ms"] - rows["command_ms"]
    return {
        "files": files,
        "repeats": repeats,
        "first_snapshot_ms": round(first_ms, 1),
        **{key: round(value, 1) for key, value in rows.items()},
        "overhead_per_command_ms": round(overhead, 1),
        "overhead_vs_git_status": round(overhead / rows["git_status_ms"], 2),
        "overhead_vs_command": round(overhead / rows["command_ms"], 2),
        "snapshot_vs_git_status": round(rows["snapshot_unchanged_ms"] / rows["git_status_ms"], 2),
    }


def main() -> None:
    """Run the benchmark, print the rows and write bench/results/snapshots.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = measure(args.files, args.repeats)
    for key, value in result.items():
        print(f"{key:32} {value}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"provenance": provenance(), **result}, indent=2) + "\n")


if __name__ == "__main__":
    main()
