"""Errors and warnings a person can use: on stderr, on one line, whatever the terminal's width.

A path in an error is what the user greps for or pastes into an editor, so it must never be cut by a
line break. Each case runs the real CLI twice: with stderr a pipe, and with stderr an 80-column
pseudo-terminal (where rich would wrap at the width).
"""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from collections.abc import Callable
from pathlib import Path

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, read_terminal

LONG = "a-project-folder-with-a-name-long-enough-that-its-config-path-passes-eighty-columns"


def _on_a_pipe(args: list[str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(
        [*CHRYSALIS, *args], cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=CLI_HANG_GUARD
    )
    return done.returncode, done.stderr


def _on_a_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """stderr (only) is an 80-column pseudo-terminal; stdout goes to a pipe and is not looked at."""
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen(
        [*CHRYSALIS, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=secondary
    )
    os.close(secondary)
    screen = read_terminal(primary)
    os.close(primary)
    return process.wait(timeout=CLI_HANG_GUARD), screen.replace("\r\n", "\n")


RUNNERS: dict[str, Callable[[list[str], Path], tuple[int, str]]] = {"pipe": _on_a_pipe, "terminal": _on_a_terminal}


@pytest.fixture
def project(workspace: Path) -> Path:
    folder = workspace / LONG
    (folder / ".chrysalis").mkdir(parents=True)
    return folder


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_broken_mcp_file_during_a_run_is_named_whole_on_stderr(project: Path, runner: str) -> None:
    servers = project / ".chrysalis" / "mcp.json"
    servers.write_text('{"mcpServers": {"x": {"command": "true",}}}\n')
    with ScriptedOpenAIServer(["done"]) as server:
        args = ["run", "say done", "--base-url", server.base_url, "--model", "bench", "--level", "0"]
        code, stderr = RUNNERS[runner](args, project)
    assert code == 2, stderr
    assert str(servers) in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    ("config_text", "exit_code", "said"),
    [
        ("level = 7\n", 2, "bad value 7 for 'level'"),  # an error
        ("yes = true\n", 0, "chrysalis trust"),  # an untrusted folder's warning
    ],
    ids=["error", "warning"],
)
def test_a_config_files_error_or_warning_names_it_whole_on_stderr(
    project: Path, runner: str, config_text: str, exit_code: int, said: str
) -> None:
    config = project / ".chrysalis" / "config.toml"
    config.write_text(config_text)
    code, stderr = RUNNERS[runner](["config", "show"], project)
    assert code == exit_code, stderr
    assert f"{config}:1" in stderr
    assert said in stderr
    assert "Traceback" not in stderr
