"""bench/multistep.py: the task set is sound (each check fails as given, passes with its solution), and a row is right.

The rows come from real ``chrysalis run`` processes against a scripted OpenAI-compatible server: one
that writes a task's reference solution (finished), one that answers "done" without an edit (a
false claim: the run succeeds, nothing checks it, the hidden check fails).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import load_bench_module

bench = load_bench_module("multistep")
TASKS = bench.load_tasks()
KINDS = {"add-function", "rename", "two-bugs", "extend", "refactor", "config"}


def test_the_set_has_twenty_tasks_of_every_kind_each_a_few_edits() -> None:
    assert len(TASKS) >= 20
    kinds = Counter(task.kind for task in TASKS)
    assert set(kinds) == KINDS and min(kinds.values()) >= 2, kinds
    for task in TASKS:
        assert task.prompt.strip() and task.steps >= 2, task.name
        assert (task.folder / "check").is_dir() and (task.folder / "solution").is_dir(), task.name
        assert (task.folder / "workspace" / "pytest.ini").is_file(), task.name


@pytest.mark.parametrize("task", TASKS, ids=[task.name for task in TASKS])
def test_each_check_fails_as_given_and_passes_with_the_solution(task: Any) -> None:
    assert bench.self_check([task]) == 0


def solution_writer(task: Any) -> Any:
    """A model that writes each of the task's solution files, one call a step, then says it is done."""
    files = sorted(p for p in (task.folder / "solution").rglob("*") if p.is_file())

    def reply(body: dict[str, Any]) -> ScriptedReply | str:
        written = sum(message["role"] == "tool" for message in body["messages"])
        if written == len(files):
            return "Done."
        path = files[written]
        rel = path.relative_to(task.folder / "solution").as_posix()
        return ScriptedReply.tool_call("write_file", {"path": rel, "content": path.read_text()})

    return reply


@pytest.mark.parametrize(("writes", "finished"), [(True, True), (False, False)])
def test_a_row_says_whether_the_hidden_check_passed_and_whether_the_run_claimed_it(
    writes: bool, finished: bool
) -> None:
    task = next(t for t in TASKS if t.kind == "add-function")
    script = solution_writer(task) if writes else (lambda _body: "Done, the function is added.")
    with ScriptedOpenAIServer(script) as server:
        row = bench.attempt(task, "scripted", "none", 120.0, base_url=server.base_url)
    assert row["task"] == task.name and row["voting"] == "none" and row["exit_code"] == (0 if writes else 1), row
    assert row["finished"] is finished and row["claimed"] is finished  # an order that changed no file is not done
    assert row["false_claim"] is False
    assert row["votes"] == 0 and row["tokens"] is not None
    assert ("+++ b/" in row["diff"]) is writes  # what the run changed, for a reader


def test_the_script_writes_its_results_with_the_summary_and_where_they_came_from(tmp_path: Path) -> None:
    task = next(t for t in TASKS if t.kind == "rename")
    out = tmp_path / "multistep.json"
    with ScriptedOpenAIServer(solution_writer(task), max_requests=200) as server:
        argv = [sys.executable, str(bench.BENCH / "multistep.py"), "--model", "scripted", "--base-url", server.base_url]
        argv += ["--tasks", task.name, "--configs", "none,medium", "--out", str(out)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())
    assert results["provenance"]["command"].startswith("python ") and results["provenance"]["commit"]
    summary = results["summary"]
    assert set(summary) == {"none", "medium"} and summary["none"]["finished"] == 1
    assert summary["medium"]["votes"] >= 1  # every write of the medium run was voted on
    assert summary["none"]["false_claims"] == summary["medium"]["false_claims"] == 0
