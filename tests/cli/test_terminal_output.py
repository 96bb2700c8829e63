"""What a person sees on a real terminal (a pseudo-terminal here): chrysalis's output and nobody else's."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from chrysalis.llm.testing import ScriptedOpenAIServer
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, read_terminal


def test_a_run_on_a_terminal_shows_no_banner_of_the_libraries(chrysalis_home: Path, workspace: Path) -> None:
    # Libraries show first-run banners only to a terminal outside pytest and CI: so run as a user would.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "CI", "PYDANTIC_AI_NO_BANNER")}
    primary, secondary = pty.openpty()
    with ScriptedOpenAIServer(["all done"]) as server:
        process = subprocess.Popen(
            [*CHRYSALIS, "run", "say done", "--base-url", server.base_url, "--model", "bench", "--level", "0"],
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=secondary,
            stderr=secondary,
        )
        os.close(secondary)
        screen = read_terminal(primary)
        assert process.wait(timeout=CLI_HANG_GUARD) == 0, screen
    os.close(primary)
    assert "all done" in screen
    assert "pydantic-ai v" not in screen
    assert "observability" not in screen
