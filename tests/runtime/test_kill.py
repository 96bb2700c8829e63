"""The kill test: SIGKILL a worker at every point of a durable run, and lose or repeat no tool effect.

One run makes ``EFFECTS`` effects that would show a repeat or a loss, shell commands that append a
line to ``effects.log`` and edits that insert a line into ``notes.txt`` in turn (an edit made twice
inserts its line twice). Workers are started one after another with fault injection on
(``chrysalis.runtime.crashpoints``): each SIGKILLs itself at the first point of the run it has not
died at before (before a step, just before and just after a model request, a tool effect or the
final check), and the next worker takes the run over from its records. When every point has been
used, a worker finishes the run. Then each effect must be there exactly once.

The scripted model behaves as a careful model would when a command was interrupted (the run tells
it so): it runs the command again guarded by a check of whether it already happened.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from chrysalis.agent.durability import INTERRUPTED
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from chrysalis.runtime.crashpoints import ENV
from tests.runtime.queue_helpers import run_record, submit, work

EFFECTS = 2
"""One command and one edit: every kind of kill point (model, tool, plan; start and done) comes up for each
kind of effect, and each point is visited once. Each point is a worker started and killed (about 5 s), so the
count is CI time: 4 effects gave 50 points in 4.5 minutes, the suite's longest test; 10 effects, 118 in 13.
``tests/runtime/test_soak.py`` and ``bench/soak.py`` kill workers at random points of many runs instead."""
MIN_KILL_POINTS = 20
_TOLD_INTERRUPTED = INTERRUPTED.split(":")[0]


def model(body: dict[str, Any]) -> ScriptedReply:
    """The next call, from the conversation so far (the same reply when a request is sent again)."""
    results = [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]
    k = sum(_TOLD_INTERRUPTED not in result for result in results)
    if k >= EFFECTS:
        return ScriptedReply(text="All effects made.")
    if k % 2 == 1:
        return ScriptedReply.tool_call("edit_file", {"path": "notes.txt", "old_text": "end", "new_text": f"{k}\nend"})
    if results and _TOLD_INTERRUPTED in results[-1]:
        return ScriptedReply.tool_call("shell", {"command": f"grep -qx {k} effects.log || echo {k} >> effects.log"})
    return ScriptedReply.tool_call("shell", {"command": f"echo {k} >> effects.log"})


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "effects"
    root.mkdir()
    (root / "notes.txt").write_text("start\nend\n")
    (root / "effects.log").write_text("")
    return root


def test_no_effect_is_lost_or_repeated_whichever_point_a_worker_dies_at(workspace: Path, tmp_path: Path) -> None:
    died_at = tmp_path / "kill-points.txt"
    crashing = {ENV: str(died_at)}
    kills = 0
    with ScriptedOpenAIServer(model, max_requests=2000, max_seconds=1800) as server:
        run_id = submit("make the effects", workspace, server.base_url, "--level", "3", "--yes", "--max-steps", "100")
        while True:
            worker = work(crashing)
            if worker.returncode == 0:
                break
            assert worker.returncode == -9, worker.stdout + worker.stderr  # SIGKILL, nothing else
            kills += 1
            assert kills < 400, "the kill points do not run out"
    points = died_at.read_text().splitlines()
    assert kills == len(points) == len(set(points))
    assert kills >= MIN_KILL_POINTS, f"only {kills} kill points"
    kinds = {point.split(":")[1] for point in points}
    assert {"model", "tool", "plan"} <= kinds
    assert any(p.endswith(":start") for p in points) and any(p.endswith(":done") for p in points)

    record = run_record(run_id)
    assert record["status"] == "done", json.dumps(record)
    shell_effects = (workspace / "effects.log").read_text().split()
    assert shell_effects == [str(k) for k in range(0, EFFECTS, 2)]  # each once, in order: none lost or repeated
    edits = (workspace / "notes.txt").read_text().split()
    assert edits == ["start", *[str(k) for k in range(1, EFFECTS, 2)], "end"]
    print(f"\n{kills} kill points, 0 lost, 0 repeated")
