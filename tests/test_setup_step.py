"""scripts/setup_step.py: the Makefile's wrapper that shows a slow set-up step is alive.

The clock is fake (the reported times are fixed), and a heartbeat is awaited, never raced: the
command under test waits for a file that the output stream creates when the heartbeat arrives.
"""

from __future__ import annotations

import importlib.util
import io
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "setup_step.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("setup_step", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


step = load()


def fake_clock(first: float, then: float) -> Callable[[], float]:
    """``first`` at the start, ``then`` ever after."""
    calls = [first]

    def clock() -> float:
        value = calls[0]
        calls[0] = then
        return value

    return clock


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


class Releasing(io.StringIO):
    """An output stream that creates ``go`` once it has printed a heartbeat containing ``wanted``."""

    def __init__(self, go: Path, wanted: str) -> None:
        super().__init__()
        self.go, self.wanted = go, wanted

    def write(self, text: str, /) -> int:
        if "still building" in text and self.wanted in text:
            self.go.touch()
        return super().write(text)


def waits_for(go: Path, first_line: str) -> list[str]:
    """A command that prints ``first_line``, then waits (at most 30 s) for ``go`` to exist."""
    return python(
        "import os, sys, time\n"
        f"print({first_line!r}, flush=True)\n"
        "deadline = time.monotonic() + 30\n"
        f"while not os.path.exists({str(go)!r}):\n"
        "    if time.monotonic() > deadline: sys.exit('no heartbeat came')\n"
        "    time.sleep(0.01)\n"
    )


def test_a_quick_step_prints_its_title_and_duration_and_logs_the_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_NATIVE=OFF")
    out = io.StringIO()
    log = tmp_path / "logs" / "step.log"
    code = step.run_step(
        python("print('Collecting rich'); print('Successfully installed rich')"),
        title="installing the Python dependencies",
        log_path=log,
        out=out,
        tty=False,
        every=60.0,  # the output ends long before: join returns at once, no heartbeat
        clock=fake_clock(0.0, 5.0),
    )
    assert code == 0
    assert out.getvalue() == ">> installing the Python dependencies\n   done in 5s\n"
    logged = log.read_text().splitlines()
    assert logged[0] == "CMAKE_ARGS=-DGGML_NATIVE=OFF"  # the build flags, for whoever reads a failed build's log
    assert logged[1].startswith(f"$ {sys.executable} -c ")
    assert logged[2:] == ["Collecting rich", "Successfully installed rich"]


def test_heartbeat_lines_say_how_long_and_which_build_step(tmp_path: Path) -> None:
    go = tmp_path / "go"
    out = Releasing(go, "(build step 3/10)")
    code = step.run_step(
        waits_for(go, "[3/10] Building CXX object ggml.o"),
        title="building the llama.cpp runtime",
        log_path=tmp_path / "build.log",
        out=out,
        tty=False,
        activity="building",
        every=0.01,
        clock=fake_clock(0.0, 90.0),
    )
    assert code == 0
    lines = out.getvalue().splitlines()
    assert lines[0] == ">> building the llama.cpp runtime"
    assert lines[-1] == "   done in 1m30s"
    beats = lines[1:-1]
    # Heartbeats before the reader saw the marker have no build step; the last one has it.
    assert beats[-1] == "   still building… 1m30s (build step 3/10)"
    assert set(beats) <= {"   still building… 1m30s", "   still building… 1m30s (build step 3/10)"}


def test_on_a_terminal_the_heartbeat_redraws_one_line(tmp_path: Path) -> None:
    go = tmp_path / "go"
    out = Releasing(go, "(build 45% done)")
    code = step.run_step(
        waits_for(go, "[ 45%] Building C object ggml.o"),
        title="building",
        log_path=tmp_path / "build.log",
        out=out,
        tty=True,
        activity="building",
        every=0.01,
        clock=fake_clock(0.0, 61.0),
    )
    assert code == 0
    text = out.getvalue()
    assert "\n" not in text.removeprefix(">> building\n").removesuffix("   done in 1m01s\n")
    assert "\r   still building… 1m01s (build 45% done)\033[K" in text
    assert text.endswith("\r\033[K   done in 1m01s\n")


def test_a_failed_step_shows_the_tail_of_its_log(tmp_path: Path) -> None:
    out = io.StringIO()
    log = tmp_path / "step.log"
    code = step.run_step(
        python("import sys\nfor n in range(40): print(f'line {n}')\nsys.exit(3)"),
        title="building",
        log_path=log,
        out=out,
        tty=False,
        clock=fake_clock(0.0, 5.0),
    )
    assert code == 3
    lines = out.getvalue().splitlines()
    assert lines[1] == f"   failed after 5s (exit 3); the last lines of {log}:"
    assert lines[2:] == [f"   | line {n}" for n in range(10, 40)]
    assert "line 0" in log.read_text()


def test_a_missing_program_is_a_clear_failure(tmp_path: Path) -> None:
    out = io.StringIO()
    code = step.run_step(["/nonexistent/pip"], title="t", log_path=tmp_path / "x.log", out=out, tty=False)
    assert code == 127
    assert "could not start /nonexistent/pip" in out.getvalue()


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0s"), (59.9, "59s"), (60, "1m00s"), (90.5, "1m30s"), (605, "10m05s")]
)
def test_elapsed_times_read_as_minutes_and_seconds(seconds: float, text: str) -> None:
    assert step.format_elapsed(seconds) == text


def test_build_steps_keep_the_latest_marker() -> None:
    steps = step.BuildSteps()
    assert steps.phrase == ""
    steps.feed("-- Configuring done")
    assert steps.phrase == ""
    steps.feed("[12/98] Building CXX object vendor/llama.cpp/src/llama.cpp.o")
    assert steps.phrase == "build step 12/98"
    steps.feed("[ 45%] Linking CXX shared library libllama.so")
    assert steps.phrase == "build 45% done"
    steps.feed("warning: unused variable [-Wunused]")
    assert steps.phrase == "build 45% done"
    steps.feed("Collecting numpy")  # pip after the build: the build's progress stays
    assert steps.phrase == "build 45% done"


def test_before_a_build_pip_collecting_lines_are_counted() -> None:
    steps = step.BuildSteps()
    steps.feed("Collecting rich==15.0.0")
    steps.feed("  Downloading rich-15.0.0-py3-none-any.whl (240 kB)")
    steps.feed("Collecting typer==0.29.1")
    assert steps.phrase == "2 packages collected"


def test_main_runs_the_command_after_the_double_dash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "main.log"
    code = step.main(["--title", "hello", "--log", str(log), "--", *python("print('hi')")])
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith(">> hello\n   done in ")
    assert log.read_text().splitlines()[-1] == "hi"


def test_main_without_a_command_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as caught:
        step.main(["--title", "t", "--log", str(tmp_path / "x.log")])
    assert caught.value.code == 2
