"""The terminal view: streamed text stays on one line and the answer is not printed twice."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from chrysalis.cli.render import RichRenderer
from chrysalis.events import Check, ErrorEvent, Event, RunResult, Start, TextDelta, ToolCall


def render(*events: Event) -> str:
    out = io.StringIO()
    renderer = RichRenderer(Console(file=out, width=100, highlight=False, color_system=None))
    for event in events:
        renderer(event)
    return out.getvalue()


def final(output: str) -> RunResult:
    return RunResult(
        run_id="r",
        output=output,
        success=True,
        steps=2,
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.0,
        duration_ms=1500.0,
    )


def test_streamed_pieces_join_on_one_line_and_the_answer_is_not_repeated() -> None:
    pieces = [TextDelta(run_id="r", text="Fixed "), TextDelta(run_id="r", text="subtract.")]
    shown = render(*pieces, final("Fixed subtract."))
    lines = shown.splitlines()
    assert lines[0] == "Fixed subtract."
    assert lines[1] == "✔ done"
    assert shown.count("Fixed subtract.") == 1


def test_text_before_a_tool_call_ends_its_line_and_an_unstreamed_answer_is_printed() -> None:
    shown = render(
        TextDelta(run_id="r", text="Let me look."),
        ToolCall(run_id="r", step=1, call_id="c", tool="read_file", args={"path": "calc.py"}),
        final("All good."),
    )
    lines = shown.splitlines()
    assert lines[0] == "Let me look."
    assert lines[1].startswith("→ read_file(path=calc.py)")
    assert "✔ All good." in shown


def start(**extra: Any) -> Start:
    return Start(
        run_id="r",
        task="t",
        model="model-b",
        mode="code",
        level=2,
        workspace="/ws",
        task_type="fix",
        profile="coder",
        profile_reason="the default for embedded models",
        **extra,
    )


def test_start_names_the_tool_profile_and_why() -> None:
    lines = render(start()).splitlines()
    assert lines == ["▶ model-b · mode code · level 2 · /ws", "  tools: coder (the default for embedded models)"]


def test_start_under_auto_says_which_model_was_picked() -> None:
    shown = render(start(model_reason="auto picked model-b for 'fix' tasks: model-b drew 0.90"))
    assert shown.splitlines()[1] == "  auto picked model-b for 'fix' tasks: model-b drew 0.90"


def test_the_answer_is_not_repeated_after_the_final_check_and_a_failed_check_says_why() -> None:
    check = Check(
        run_id="r",
        command="python -m pytest -q",
        passed=False,
        exit_code=1,
        sandboxed=True,
        report="exit code 1\nFAILED tests/test_calc.py::test_subtract - assert 8 == 2",
    )
    failed = RunResult(
        run_id="r",
        output="Fixed subtract.",
        success=False,
        steps=2,
        input_tokens=10,
        output_tokens=5,
        cost_usd=0.0,
        duration_ms=1500.0,
        verified=False,
        problem="the tests failed",
    )
    shown = render(TextDelta(run_id="r", text="Fixed subtract."), check, failed)
    assert shown.count("Fixed subtract.") == 1
    assert "✗ check failed: python -m pytest -q (sandbox), exit code 1" in shown
    assert "assert 8 == 2" in shown and "✘ done" in shown and "not verified: the tests failed" in shown


def test_a_sub_agents_events_show_nested_under_the_parent() -> None:
    child = Start(
        run_id="c",
        task="fix calc.py",
        model="m",
        mode="code",
        level=2,
        workspace="/ws",
        task_type="fix",
        profile="editor",
        profile_reason="spawned",
        parent_run_id="r",
    )
    shown = render(
        TextDelta(run_id="r", text="thinking aloud"),
        child,
        TextDelta(run_id="c", text="the child's streamed text"),
        ToolCall(run_id="c", step=1, call_id="x", tool="read_file", args={"path": "calc.py"}),
        RunResult(
            run_id="c",
            output="fixed",
            success=True,
            steps=2,
            input_tokens=1,
            output_tokens=1,
            cost_usd=0.0,
            duration_ms=1.0,
        ),
        final("Merged."),
    )
    nested = [line for line in shown.splitlines() if line.startswith("  ┆ sub 1 ")]
    assert [line.split("sub 1 ", 1)[1][:9] for line in nested] == ["started: ", "→ read_fi", "✔ fixed"]
    assert "the child's streamed text" not in shown
    assert shown.rstrip().splitlines()[-2] == "✔ Merged."


def test_a_runs_error_goes_to_stderr_on_one_line_whatever_the_width() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = RichRenderer(
        Console(file=out, width=80, color_system=None), Console(file=err, width=80, color_system=None)
    )
    path = "/home/someone/projects/a-rather-long-project-name/.chrysalis/mcp.json:1:37"
    renderer(ErrorEvent(run_id="r", reason="config", message=f"{path}: expected ',' or '}}'", exit_code=2))
    assert out.getvalue() == ""
    assert err.getvalue().splitlines() == [f"✘ config: {path}: expected ',' or '}}'"]
