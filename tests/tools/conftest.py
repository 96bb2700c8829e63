from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext


@dataclass
class WriteLog:
    """Records before_write calls, with whether the file existed and its content at that moment."""

    calls: list[tuple[Path, str | None]] = field(default_factory=list[tuple[Path, str | None]])

    def __call__(self, path: Path) -> None:
        self.calls.append((path, path.read_text() if path.exists() else None))

    @property
    def paths(self) -> list[Path]:
        return [path for path, _ in self.calls]


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
