"""Start-up cost: `chrysalis --help` and the time to the first model request, against `python -c pass`.

Ratios against the bare interpreter in the same run, because these machines are noisy. The first
model request goes to a scripted OpenAI-compatible server on 127.0.0.1, so this measures our
imports and set-up, not a model. Writes bench/results/startup.json.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chrysalis.llm.testing import ScriptedOpenAIServer

RESULTS = Path(__file__).resolve().parent / "results" / "startup.json"
REPEATS = 9


def timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def median_of(command: list[str], env: dict[str, str], repeats: int = REPEATS) -> float:
    timed(command, env)  # warm the file cache
    return statistics.median(timed(command, env) for _ in range(repeats))


def first_request_seconds(env: dict[str, str], workspace: Path) -> float:
    """Time from process start until the scripted server has seen the first request."""
    times: list[float] = []
    for _ in range(5):
        with ScriptedOpenAIServer(["done"]) as server:
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "chrysalis", "run", "say done", "--base-url", server.base_url,
                 "--model", "scripted", "--workspace", str(workspace)],
                env=env, check=True, capture_output=True,
            )  # fmt: skip
            assert server.request_times, "the server saw no request"
            times.append(server.request_times[0] - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "CHRYSALIS_HOME": home}
        chrysalis = str(Path(sys.executable).with_name("chrysalis"))
        baseline = median_of([sys.executable, "-c", "pass"], env)
        help_time = median_of([chrysalis, "--help"], env)
        first = first_request_seconds(env, Path(home))
    rows = [
        ("python -c pass", baseline, 1.0),
        ("chrysalis --help", help_time, help_time / baseline),
        ("time to first model request", first, first / baseline),
    ]
    print(f"{'what':32} {'seconds':>9} {'× python':>9}")
    for name, seconds, ratio in rows:
        print(f"{name:32} {seconds:9.3f} {ratio:9.1f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps({name: {"seconds": round(s, 4), "ratio": round(r, 2)} for name, s, r in rows}, indent=2)
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
