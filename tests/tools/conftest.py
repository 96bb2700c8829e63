from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from tests.helpers import WriteLog


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace.resolve()


@pytest.fixture
def writes() -> WriteLog:
    return WriteLog()


@pytest.fixture
def ctx(ws: Path, writes: WriteLog) -> ToolContext:
    return ToolContext(workspace=ws, before_write=writes, shell_timeout=30.0)
