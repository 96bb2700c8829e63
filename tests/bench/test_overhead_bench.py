"""bench/overhead.py's pure helpers: the scripts are valid for every peer's tool, and the timing arithmetic is right.

Nothing here runs a peer or reads a benchmark result: the benchmark itself is never part of ``make test``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chrysalis.tools.files import ReadFileArgs
from chrysalis.tools.text import number_lines
from tests.helpers import BENCH, load_bench_module

ov = load_bench_module("overhead")


def _load_peer_common() -> ModuleType:
    """``bench/peers/overhead_common.py`` by path (the drivers import it as a sibling, standard library only)."""
    name = "overhead_common"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / "peers" / "overhead_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


common = _load_peer_common()


def test_chunks_cover_the_log_exactly_once() -> None:
    steps = 7
    log_lines = ov.make_log(steps).splitlines()
    covered = [n for i in range(steps) for n in range(ov.chunk_bounds(i)[0], ov.chunk_bounds(i)[1] + 1)]
    assert covered == list(range(1, len(log_lines) + 1))


FINISHES = [("text", None), ("final_answer", "final_answer"), ("mini_submit", "bash")]


@pytest.mark.parametrize(("finish", "last"), FINISHES)
def test_every_script_has_steps_plus_one_replies_ending_the_peers_way(finish: str, last: str | None) -> None:
    tool_kind = "bash" if finish == "mini_submit" else "read_file"
    script = ov.peer_script(tool_kind, finish, 5)
    assert len(script) == 6
    assert all(reply.tool_calls[0][0] == tool_kind for reply in script[:-1])
    if last is None:
        assert script[-1] == ov.FINAL_ANSWER
    else:
        name, args = script[-1].tool_calls[0]
        assert name == last
        assert ov.FINAL_ANSWER in json.dumps(args)


def test_read_file_calls_are_valid_for_chrysalis_and_inside_the_log(tmp_path: Path) -> None:
    steps = 12
    (tmp_path / ov.LOG_NAME).write_text(ov.make_log(steps))
    total = len(ov.make_log(steps).splitlines())
    for reply in ov.peer_script("read_file", "text", steps)[:-1]:
        args = ReadFileArgs.model_validate(reply.tool_calls[0][1])  # chrysalis's own argument model
        assert args.path == ov.LOG_NAME
        assert args.start_line is not None and args.end_line is not None
        assert 1 <= args.start_line <= args.end_line <= total


def test_mini_submit_prints_the_marker_first_then_the_answer() -> None:
    import subprocess

    command = ov.peer_script("bash", "mini_submit", 1)[-1].tool_calls[0][1]["command"]
    out = subprocess.run(command, shell=True, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [ov.MINI_SUBMIT, ov.FINAL_ANSWER]


def test_the_drivers_tool_numbers_lines_as_chrysalis_read_file_does(tmp_path: Path) -> None:
    (tmp_path / "app.log").write_text(ov.make_log(3))
    lines = ov.make_log(3).splitlines()
    shown = common.read_lines(tmp_path, "app.log", 5, 8)
    header, body = shown.split("\n", 1)
    assert header == f"app.log (lines 5-8 of {len(lines)})"
    assert body == number_lines(lines[4:8], 5)


def test_chrysalis_task_is_the_drivers_task() -> None:
    assert ov.CHRYSALIS_TASK == common.TASK


def test_step_timing_leaves_start_up_and_shutdown_out() -> None:
    timing = ov.step_timing([10.0, 10.5, 11.0, 12.0], started=9.0, ended=12.5)
    assert timing.ms_per_step == pytest.approx(2000 / 3)
    assert timing.startup_s == pytest.approx(1.0)
    assert timing.wall_s == pytest.approx(3.5)


def test_early_and_late_steps_tell_a_fixed_cost_from_a_growing_one() -> None:
    gaps_ms = [float(n) for n in range(1, 31)]  # each step 1 ms slower than the one before
    arrivals = [0.0]
    for gap in gaps_ms:
        arrivals.append(arrivals[-1] + gap / 1000)
    timing = ov.step_timing(arrivals, started=0.0, ended=arrivals[-1])
    assert timing.early_ms == pytest.approx(5.5)  # median of 1..10
    assert timing.late_ms == pytest.approx(25.5)  # median of 21..30
    assert timing.ms_per_step == pytest.approx(15.5)


def test_step_timing_needs_two_requests() -> None:
    with pytest.raises(ValueError, match="at least two requests"):
        ov.step_timing([1.0], started=0.0, ended=2.0)


def test_summary_is_the_median_and_ratios_divide_by_the_baseline() -> None:
    runs = [ov.RunTiming(10.0, 1.0, 2.0), ov.RunTiming(30.0, 3.0, 4.0), ov.RunTiming(20.0, 2.0, 3.0)]
    rows = {
        "openai": ov.summarize([ov.RunTiming(10.0, 0.5, 1.0)]),
        "chrysalis": ov.summarize(runs),
        "mini": {"status": ov.SETUP_HINT},
    }
    assert rows["chrysalis"]["ms_per_step"] == 20.0
    assert rows["chrysalis"]["min_ms_per_step"] == 10.0
    assert rows["chrysalis"]["startup_s"] == 2.0
    assert len(rows["chrysalis"]["runs"]) == 3
    ov.add_ratios(rows, "openai")
    assert rows["chrysalis"]["ratio_to_openai"] == 2.0
    assert rows["chrysalis"]["startup_ratio_to_openai"] == 4.0
    assert rows["mini"] == {"status": ov.SETUP_HINT}


def test_paired_ratio_divides_within_each_round() -> None:
    base = [ov.RunTiming(10.0, 0, 0), ov.RunTiming(20.0, 0, 0), ov.RunTiming(10.0, 0, 0)]
    ours = [ov.RunTiming(12.0, 0, 0), ov.RunTiming(30.0, 0, 0), ov.RunTiming(11.0, 0, 0)]
    assert ov.paired_ratio(ours, base) == 1.2  # median of 1.2, 1.5, 1.1
    assert ov.paired_ratio(ours[:2], base) is None


def test_no_ratios_without_a_measured_baseline() -> None:
    rows = {"openai": {"status": "failed: boom"}, "chrysalis": ov.summarize([ov.RunTiming(10.0, 1.0, 2.0)])}
    ov.add_ratios(rows, "openai")
    assert "ratio_to_openai" not in rows["chrysalis"]


def test_the_result_line_is_found_after_a_frameworks_own_output() -> None:
    stdout = '╭─ Step 1 ─╮\n{not json\n{"answer": "Nothing failed.", "tool_calls": 3}\n'
    assert ov.last_json_line(stdout) == {"answer": "Nothing failed.", "tool_calls": 3}
    assert ov.last_json_line("no result\n") is None


def test_check_result_accepts_only_the_scripted_run() -> None:
    driver = ov.PEERS[0]
    assert ov.check_result(driver, '{"answer": "Nothing failed.", "tool_calls": 4}', 4) is None
    assert "3 tool calls" in ov.check_result(driver, '{"answer": "Nothing failed.", "tool_calls": 3}', 4)
    assert "unexpected answer" in ov.check_result(driver, '{"answer": "oops", "tool_calls": 4}', 4)
    chrysalis = next(p for p in ov.PEERS if p.key == "chrysalis")
    events = [{"type": "tool_result", "ok": True}] * 2 + [{"type": "final", "output": ov.FINAL_ANSWER}]
    assert ov.check_result(chrysalis, "\n".join(json.dumps(e) for e in events), 2) is None
    assert "no final event" in ov.check_result(chrysalis, "", 2)


def test_a_peer_without_its_venv_is_reported_not_run() -> None:
    ghost = ov.Peer("no-such-peer", "ghost", "none", ("nothing",), "read_file", "text", "overhead_ghost.py")
    rows = ov.whole_process([ghost], steps=1, runs=1, timeout=1.0)
    assert rows["no-such-peer"]["status"] == ov.SETUP_HINT
    assert "ms_per_step" not in rows["no-such-peer"]


def test_a_failing_peer_is_reported_and_the_others_still_get_ratios(monkeypatch: pytest.MonkeyPatch) -> None:
    ms = {"openai": 10.0, "chrysalis": 12.0}
    ran: list[str] = []

    def fake_run(peer: Any, steps: int, timeout: float) -> Any:
        key = peer.key
        ran.append(key)
        if key == "mini":
            raise RuntimeError("exit 1: boom")
        return ov.RunTiming(ms[key], 0.5, 1.0)

    monkeypatch.setattr(ov, "run_peer_once", fake_run)
    monkeypatch.setattr(ov, "is_set_up", lambda peer: True)
    monkeypatch.setattr(ov, "peer_versions", lambda peer: {})
    chosen = [p for p in ov.PEERS if p.key in {"openai", "mini", "chrysalis"}]
    rows = ov.whole_process(chosen, steps=3, runs=2, timeout=1.0)
    assert rows["mini"]["status"] == "failed: exit 1: boom"
    assert ran.count("mini") == 1  # not retried once broken
    assert ran.count("openai") == ran.count("chrysalis") == 3  # a warm-up and two measured rounds
    assert rows["chrysalis"]["ratio_to_openai"] == rows["chrysalis"]["paired_ratio_to_openai"] == 1.2


def test_chrysalis_runs_through_its_cli_read_only_with_room_for_every_request() -> None:
    chrysalis = next(p for p in ov.PEERS if p.key == "chrysalis")
    command = ov.peer_command(chrysalis, "http://127.0.0.1:1/v1", Path("/ws"), 50)
    assert command[1:3] == ["run", ov.CHRYSALIS_TASK]
    assert command[command.index("--level") + 1] == "0"
    assert "--json" in command
    assert int(command[command.index("--max-steps") + 1]) >= 51


# -- bench/startup.py: the import-time profile of `chrysalis run` before its first request -------------------------

IMPORTTIME_LOG = """\
import time: self [us] | cumulative | imported package
import time:       100 |        100 |   _io
import time:       200 |        300 | io
import time:        50 |         50 |     openai.types.chat
import time:       400 |        450 |   openai.types
import time:        25 |        900 | openai
some other line on stderr
"""


def test_importtime_rows_keep_depth_and_both_times() -> None:
    su = load_bench_module("startup")
    rows = su.parse_importtime(IMPORTTIME_LOG)
    assert [(r.name, r.depth, r.self_us, r.cumulative_us) for r in rows] == [
        ("_io", 1, 100, 100),
        ("io", 0, 200, 300),
        ("openai.types.chat", 2, 50, 50),
        ("openai.types", 1, 400, 450),
        ("openai", 0, 25, 900),
    ]


def test_import_summary_ranks_top_level_imports_and_sums_only_them() -> None:
    su = load_bench_module("startup")
    summary = su.summarize_imports(su.parse_importtime(IMPORTTIME_LOG), top=2)
    assert summary["total_ms"] == 1.2  # 0.3 + 0.9: nested rows are inside their parents already
    assert [row["module"] for row in summary["top_level"]] == ["openai", "io"]
    assert [row["module"] for row in summary["slowest_self"]] == ["openai.types", "io"]
    assert summary["by_package"] == [{"package": "openai", "self_ms": 0.5}, {"package": "io", "self_ms": 0.2}]
