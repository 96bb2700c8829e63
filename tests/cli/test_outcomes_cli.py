"""Exit codes a user can trust: a correct run exits 0, a budget that cannot be enforced exits 2, a bug says so."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.session import AgentSession
from chrysalis.cli.app import main
from chrysalis.config import load_settings
from chrysalis.errors import InternalError
from chrysalis.events import ErrorEvent, Event
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import assert_clean_error, chrysalis, scripted


def test_writing_a_file_where_nothing_can_check_it_exits_0(tmp_path: Path) -> None:
    workspace = tmp_path / "notes"
    workspace.mkdir()
    script: list[ScriptedReply | str] = [
        ScriptedReply.tool_call("write_file", {"path": "hello.txt", "content": "hello\n"}),
        "Wrote hello.txt.",
    ]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run",
            "write hello.txt",
            *scripted(server.base_url),
            "--level",
            "2",
            "--yes",
            "--json",
            "--workspace",
            str(workspace),
        )
    assert done.returncode == 0, done.stdout + done.stderr
    final = json.loads(done.stdout.splitlines()[-1])
    assert final["type"] == "final" and final["success"] is True and final["verified"] is None
    assert (workspace / "hello.txt").read_text() == "hello\n"


def test_a_budget_on_an_unpriced_model_exits_2_naming_the_model_and_the_prices_table(workspace: Path) -> None:
    with ScriptedOpenAIServer(["never sent"]) as server:
        done = chrysalis(
            "run", "hi", *scripted(server.base_url, "bench"), "--budget", "0.05", "--workspace", str(workspace)
        )
        assert server.requests == []
    assert_clean_error(done, 2)
    shown = done.stdout + done.stderr
    assert "'bench' has no known price" in shown and "[prices]" in shown and "--budget" in shown


def test_a_priced_model_from_the_prices_table_is_charged_and_stopped_by_its_budget(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text('[prices]\n"bench" = { input = 100000.0, output = 0.0 }\n')
    script: list[ScriptedReply | str] = [ScriptedReply.tool_call("read_file", {"path": "calc.py"}), "done"]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run",
            "look",
            *scripted(server.base_url, "bench"),
            "--budget",
            "0.01",
            "--json",
            "--workspace",
            str(workspace),
        )
    assert done.returncode == 1, done.stdout + done.stderr
    error = json.loads(done.stdout.splitlines()[-1])
    assert error["type"] == "error" and error["reason"] == "budget"


def test_a_bad_prices_table_exits_2_naming_the_file_and_the_key(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text('model = "local:qwen2.5-coder-1.5b"\n[prices]\n"m" = 3\n')
    done = chrysalis("config", "show", "--workspace", str(workspace))
    assert_clean_error(done, 2, "config.toml:2", "'prices'", "input")


def test_an_unexpected_exception_in_a_run_is_reported_as_a_bug_with_its_traceback_saved(
    workspace: Path, chrysalis_home: Path
) -> None:
    def broken(_messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        raise KeyError("no such part")  # stands for a bug of ours inside the loop

    events: list[Event] = []
    session = AgentSession(load_settings({"workspace": workspace}), model=FunctionModel(broken), on_event=events.append)
    with pytest.raises(InternalError) as caught:
        asyncio.run(session.run("look"))
    session.close()
    error = caught.value
    assert "This is a bug in chrysalis" in str(error) and "KeyError" in str(error)
    assert error.log_path is not None and error.log_path.parent == chrysalis_home / "logs"
    assert "KeyError: 'no such part'" in error.log_path.read_text()
    assert isinstance(events[-1], ErrorEvent) and events[-1].reason == "bug" and events[-1].exit_code == 1


@pytest.mark.parametrize("debug", [False, True])
def test_a_bug_in_a_command_prints_one_line_and_the_traceback_only_with_debug(
    debug: bool, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chrysalis.cli.misc_cmds as misc

    def stats_with_a_bug() -> Any:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(misc, "stats_command", stats_with_a_bug)
    with pytest.raises(SystemExit) as exited:
        main(["--debug", "stats"] if debug else ["stats"])
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert "This is a bug in chrysalis" in err and "ZeroDivisionError" in err
    assert ("Traceback (most recent call last)" in err) is debug
    (log,) = (chrysalis_home / "logs").iterdir()
    assert "ZeroDivisionError: division by zero" in log.read_text()
