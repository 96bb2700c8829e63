"""Shared fixtures: every test gets its own CHRYSALIS_HOME and workspace; no test touches the user's files."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

_LOOPBACK = ("127.", "::1", "localhost")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests in this process may only reach 127.0.0.1: a connection elsewhere fails as if offline."""
    connect = socket.socket.connect

    def loopback_only(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not str(address[0]).startswith(_LOOPBACK):
            raise OSError(f"tests may not use the network (tried {address[0]}:{address[1]})")
        connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)


@pytest.fixture(autouse=True)
def chrysalis_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CHRYSALIS_HOME", str(home))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "CHRYSALIS_MODEL_CACHE"):
        monkeypatch.delenv(key, raising=False)  # the e2e fixture points the model cache back at real weights
    for key in ("MODEL", "BASE_URL", "MODE", "LEVEL", "PRIORITY", "BUDGET", "TIMEOUT", "MAX_STEPS", "WORKSPACE", "YES"):
        monkeypatch.delenv(f"CHRYSALIS_{key}", raising=False)
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def subtract(a, b):\n    return a + b\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "from calc import subtract\n\n\ndef test_subtract():\n    assert subtract(5, 3) == 2\n"
    )
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    return root
