"""The `chrysalis` command as a user runs it: real subprocesses, exit codes, messages, no tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import assert_clean_error, chrysalis, scripted


def test_help_lists_the_commands() -> None:
    done = chrysalis("--help")
    assert done.returncode == 0
    for command in ("run", "config", "models", "stats", "undo"):
        assert command in done.stdout


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys; from chrysalis.cli.app import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('pydantic_ai', 'llama_cpp', 'openai', 'anthropic', 'sqlite3', 'cryptography',\n"
        "                     'sqlalchemy', 'rdflib', 'dbos', 'fastapi') if m in sys.modules]\n"
        "print('HEAVY', heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stdout


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--level", "7"], ["flag --level", "'7'", "0 to 3"]),
        (["--mode", "yolo"], ["flag --mode", "architect"]),
        (["--max-steps", "0"], ["flag --max-steps", "positive integer"]),
        (["--budget", "lots"], ["flag --budget", "USD"]),
        (["--timeout", "-5"], ["flag --timeout", "seconds"]),
        (["--base-url", "ftp://x"], ["flag --base-url", "http(s) URL"]),
        (["--workspace", "/definitely/not/here"], ["flag --workspace", "existing folder"]),
    ],
)
def test_bad_flags_exit_2_with_a_clear_message(workspace: Path, args: list[str], needles: list[str]) -> None:
    extra = [] if "--workspace" in args else ["--workspace", str(workspace)]
    assert_clean_error(chrysalis("run", "do it", *args, *extra), 2, *needles)


def test_empty_task_exits_2(workspace: Path) -> None:
    assert_clean_error(chrysalis("run", "  ", "--workspace", str(workspace)), 2, "task is empty")


def test_missing_api_key_exits_2_naming_the_variable(workspace: Path) -> None:
    done = chrysalis("run", "hi", "--model", "openai:gpt-4o-mini", "--workspace", str(workspace))
    assert done.returncode == 2, done.stderr + done.stdout
    assert "OPENAI_API_KEY" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_unknown_provider_exits_2(workspace: Path) -> None:
    done = chrysalis("run", "hi", "--model", "nosuch:thing", "--workspace", str(workspace))
    assert done.returncode == 2
    assert "nosuch" in done.stdout + done.stderr and "Traceback" not in done.stdout + done.stderr


def test_bad_project_config_exits_2_with_file_and_line(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text("level = 1\nmode = 3 3\n")
    assert_clean_error(chrysalis("config", "show", "--workspace", str(workspace)), 2, "config.toml", "line 2")


def test_config_show_names_sources(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()
    (workspace / ".chrysalis" / "config.toml").write_text('mode = "ask"\n')
    done = chrysalis("config", "show", "--workspace", str(workspace), env={"CHRYSALIS_LEVEL": "1", "COLUMNS": "400"})
    assert done.returncode == 0, done.stderr
    lines = {line.split("│")[1].strip(): line for line in done.stdout.splitlines() if line.count("│") >= 3}
    assert "env CHRYSALIS_LEVEL" in lines["level"]
    assert "config.toml:1" in lines["mode"]
    assert "default" in lines["max_steps"]


def test_undo_with_nothing_to_undo_exits_2(workspace: Path) -> None:
    done = chrysalis("undo", "--workspace", str(workspace))
    assert done.returncode == 2 and "Traceback" not in done.stderr


def _tool_call(name: str, args: dict[str, Any]) -> ScriptedReply:
    return ScriptedReply.tool_call(name, args)


def test_json_run_against_a_scripted_server_prints_one_event_per_line(workspace: Path) -> None:
    script = [
        _tool_call("read_file", {"path": "calc.py"}),
        _tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}),
        _tool_call("shell", {"command": "python -m pytest -q -p no:cacheprovider"}),
        ScriptedReply(text="Fixed."),
    ]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run",
            "fix the failing test",
            "--json",
            *scripted(server.base_url),
            "--level",
            "3",
            "--yes",
            "--workspace",
            str(workspace),
        )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "start" and types[-1] == "final"
    assert types.count("tool_call") == 3 and types.count("tool_result") == 3
    assert all(e["run_id"] == events[0]["run_id"] for e in events)
    assert (workspace / "calc.py").read_text().count("a - b") == 1

    undo = chrysalis("undo", "--workspace", str(workspace))
    assert undo.returncode == 0, undo.stderr
    assert "a + b" in (workspace / "calc.py").read_text()


def test_refused_run_exits_3(workspace: Path) -> None:
    script = [_tool_call("write_file", {"path": "x.py", "content": "1"})] * 3
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis("run", "write x", *scripted(server.base_url), "--level", "0", "--workspace", str(workspace))
    assert done.returncode == 3, done.stdout + done.stderr
    assert "--level 2" in done.stdout + done.stderr
    assert not (workspace / "x.py").exists()


def test_an_answer_over_failing_tests_exits_1_and_says_why(workspace: Path) -> None:
    (workspace / ".chrysalis").mkdir()  # no repair: the framework would run it itself (tests/repair/test_rescue.py)
    (workspace / ".chrysalis" / "config.toml").write_text('[permissions]\ndeny = ["repair"]\n')
    script = [
        _tool_call("edit_file", {"path": "calc.py", "old_text": "a + b", "new_text": "a * b"}),
        _tool_call("shell", {"command": "python -m pytest -q -p no:cacheprovider"}),
        *[ScriptedReply(text="Fixed.")] * 3,  # sent back twice with the failing output, then taken as the answer
    ]
    with ScriptedOpenAIServer(script) as server:
        done = chrysalis(
            "run",
            "fix the failing test",
            *scripted(server.base_url),
            "--level",
            "3",
            "--yes",
            "--workspace",
            str(workspace),
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "check failed: python -m pytest" in done.stdout
    assert "not verified: the tests failed when Chrysalis ran" in done.stdout
