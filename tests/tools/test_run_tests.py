"""run_tests: the project's test command, detected or configured, and a pointer to the code under test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.per_test_limit import with_test_limit
from chrysalis.tools.run_tests import code_under_test, detect_test_command, run_tests


def project(tmp_path: Path, body: str = "a + b") -> Path:
    (tmp_path / "calc.py").write_text(f"def subtract(a, b):\n    return {body}\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "from calc import subtract\n\n\ndef test_subtract():\n    assert subtract(5, 3) == 2\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return tmp_path


def test_a_failing_run_names_the_code_the_tests_exercise(tmp_path: Path) -> None:
    result = run_tests({}, ToolContext(workspace=project(tmp_path)))
    assert result.ok
    text = str(result.result)
    assert text.startswith("$ python -m pytest") and "\nexit code 1" in text
    assert "1 failed" in text and "exercise calc.py" in text


def test_a_passing_run_reports_exit_code_0(tmp_path: Path) -> None:
    result = run_tests({}, ToolContext(workspace=project(tmp_path, body="a - b")))
    assert "\nexit code 0" in str(result.result) and "exercise" not in str(result.result)


def test_a_test_stuck_in_a_loop_fails_where_it_loops_before_the_command_times_out(tmp_path: Path) -> None:
    workspace = project(tmp_path)
    (workspace / "calc.py").write_text("def subtract(a, b):\n    while a != b:\n        a = a + 0\n    return a - b\n")
    result = run_tests({}, ToolContext(workspace=workspace, shell_timeout=30.0))  # 5 s a test
    text = str(result.result)
    assert text.startswith("$ python -m pytest -q -p no:cacheprovider\n")  # the command as the project has it
    assert "\nexit code 1" in text and "Timed out" not in text
    assert "the test ran longer than 5 s" in text and re.search(r"^calc\.py:[23]: ", text, re.M)
    assert "chrysalis_test_limit.py:" not in text  # the traceback ends where it loops, not in the plugin
    assert sorted(p.name for p in workspace.iterdir()) == ["calc.py", "pytest.ini", "tests"]  # nothing copied in


def test_a_project_with_pytest_timeout_keeps_its_own_limits(tmp_path: Path) -> None:
    workspace = project(tmp_path, body="a - b")
    (workspace / "timeout.py").write_text("# stands in for pytest-timeout: a plugin registered as 'timeout'\n")
    (workspace / "pytest.ini").write_text("[pytest]\npythonpath = .\naddopts = -p timeout\n")
    slow = "import time\n\n\ndef test_slow():\n    time.sleep(6)\n"  # past our 5 s limit
    (workspace / "tests" / "test_slow.py").write_text(slow)
    result = run_tests({}, ToolContext(workspace=workspace, shell_timeout=30.0))
    assert "\nexit code 0" in str(result.result) and "2 passed" in str(result.result)


@pytest.mark.parametrize(
    "command",
    ["make test", "pytest tests; rm -rf build", "pytest -k 'a or b' | tee log", "cd sub && pytest", "pytest 'unclosed"],
)
def test_only_one_plain_pytest_call_gets_the_limit(command: str) -> None:
    assert with_test_limit(command, 120.0) == command


@pytest.mark.parametrize("command", ["pytest -q", "python -m pytest -x tests", ".venv/bin/pytest"])
def test_a_plain_pytest_call_loads_the_plugin_with_a_sixth_of_the_timeout(command: str) -> None:
    limited = with_test_limit(command, 120.0)
    assert limited.startswith("PYTHONPATH=")
    assert limited.endswith(f" {command} -p chrysalis_test_limit --chrysalis-test-limit=20")
    assert with_test_limit(command, 12.0).endswith("--chrysalis-test-limit=5")  # never under 5 s


def test_the_configured_command_wins(tmp_path: Path) -> None:
    result = run_tests({}, ToolContext(workspace=project(tmp_path), test_command="echo custom-tests"))
    assert "custom-tests" in str(result.result) and "exit code 0" in str(result.result)


def test_no_known_command_is_a_clear_failure(tmp_path: Path) -> None:
    result = run_tests({}, ToolContext(workspace=tmp_path))
    assert not result.ok and "test_command" in (result.error or "")


def test_arguments_are_refused(tmp_path: Path) -> None:
    result = run_tests({"command": "rm -rf /"}, ToolContext(workspace=project(tmp_path)))
    assert not result.ok and "Bad arguments" in (result.error or "")


@pytest.mark.parametrize(
    ("marker", "command"),
    [
        ("pytest.ini", "python -m pytest -q -p no:cacheprovider"),
        ("package.json", "npm test --silent"),
        ("Cargo.toml", "cargo test -q"),
        ("go.mod", "go test ./..."),
    ],
)
def test_detect_test_command(tmp_path: Path, marker: str, command: str) -> None:
    (tmp_path / marker).write_text("{}\n")
    assert detect_test_command(tmp_path) == command


def test_detect_make_test(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("all:\n\ttrue\ntest:\n\ttrue\n")
    assert detect_test_command(tmp_path) == "make test"
    (tmp_path / "Makefile").write_text("all:\n\ttrue\n")
    assert detect_test_command(tmp_path) is None


def test_code_under_test_follows_imports(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "util.py").write_text("")
    (tmp_path / "test_x.py").write_text("import os\nimport util\nfrom pkg import thing\n")
    assert code_under_test(tmp_path, "test_x.py") == ["util.py", "src/pkg/__init__.py"]
    assert code_under_test(tmp_path, "missing.py") == []
