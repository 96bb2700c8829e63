"""Shared fixtures: every test gets its own CHRYSALIS_HOME and workspace; no test touches the user's files."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def chrysalis_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CHRYSALIS_HOME", str(home))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(key, raising=False)
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
