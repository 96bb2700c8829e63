"""Running the durable runtime as a user does: ``chrysalis submit``, then ``chrysalis worker`` processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, chrysalis


def submit(task: str, workspace: Path, server_url: str, *flags: str, env: dict[str, str] | None = None) -> str:
    """Queue ``task`` against the scripted server; returns the run id."""
    done = chrysalis(
        "submit",
        task,
        "--json",
        "--base-url",
        server_url,
        "--model",
        "scripted",
        "--workspace",
        str(workspace),
        *flags,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    reply = json.loads(done.stdout)
    assert reply["status"] == "queued"
    return str(reply["id"])


def work(env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One ``chrysalis worker --exit-when-idle`` to its end."""
    return subprocess.run(
        [*CHRYSALIS, "worker", "--exit-when-idle"],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=CLI_HANG_GUARD,
        stdin=subprocess.DEVNULL,
    )


def run_record(run_id: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """The run as ``chrysalis show ID --json`` reports it (its last line)."""
    done = chrysalis("show", run_id, "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    record: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return record


def events(run_id: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The run's events as ``chrysalis show ID --json`` prints them (without the closing ``run`` line)."""
    done = chrysalis("show", run_id, "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()[:-1]]


def spawn(*args: str) -> subprocess.Popen[str]:
    """``chrysalis ARGS`` in the background, with SIGINT as a terminal gives it (Ctrl-C raises KeyboardInterrupt).

    A shell's background job starts with SIGINT ignored and Python keeps it ignored, so the test
    puts the default back rather than depend on how pytest itself was started.
    """
    return subprocess.Popen(
        [*CHRYSALIS, *args],
        env=dict(os.environ),
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def finish(process: subprocess.Popen[str]) -> tuple[str, str]:
    """Wait for ``process`` and return (stdout, stderr); one that hangs is killed (and its pipes closed) first."""
    try:
        return process.communicate(timeout=CLI_HANG_GUARD)
    except subprocess.TimeoutExpired:
        process.kill()
        _out, err = process.communicate()
        raise AssertionError(f"chrysalis {process.args!r} hung; killed it. stderr: {err[-2000:]}") from None


def folder_without_tests(tmp_path: Path) -> Path:
    """A workspace with no tests, so no final check asks the model for more."""
    root = tmp_path / "plain"
    root.mkdir()
    (root / "README.md").write_text("notes\n")
    return root
