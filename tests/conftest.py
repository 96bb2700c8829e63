"""Shared fixtures: every test gets its own CHRYSALIS_HOME and workspace; no test touches the user's files."""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from chrysalis.llm.local.catalog import get_local_model
from chrysalis.llm.local.weights import MODEL_CACHE_ENV, is_cached
from tests.helpers import E2E_MODEL, PROVIDER_KEYS, PYTEST_INI, REAL_MODEL_CACHE
from tests.postgres import postgres_database

_LOOPBACK = ("127.", "::1", "localhost")
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Chrysalis Tests",
    "GIT_AUTHOR_EMAIL": "tests@chrysalis.invalid",
    "GIT_COMMITTER_NAME": "Chrysalis Tests",
    "GIT_COMMITTER_EMAIL": "tests@chrysalis.invalid",
}
"""The suite's own git identity, in the environment: it passes where git has none (``GIT_CONFIG_GLOBAL=/dev/null``)."""

# Property tests never race a clock: on a busy machine generating or running an example may take
# seconds, which is not a failure of the code under test.
settings.register_profile("no_clock", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("no_clock")


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
    """A fresh CHRYSALIS_HOME, and none of the developer's other CHRYSALIS_* settings or provider keys."""
    for key in [name for name in os.environ if name.startswith("CHRYSALIS_")]:
        monkeypatch.delenv(key)  # the e2e fixture points the model cache back at the real weights
    for key in PROVIDER_KEYS:
        monkeypatch.delenv(key, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CHRYSALIS_HOME", str(home))
    for key, value in GIT_IDENTITY.items():  # commits need an identity; a fresh machine has none
        monkeypatch.setenv(key, value)
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
    (root / "pytest.ini").write_text(PYTEST_INI)
    return root


@pytest.fixture
def real_model_cache(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the model cache at the real, already assembled weights; skip when they are not there."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (run `make setup`)")
    monkeypatch.setenv(MODEL_CACHE_ENV, str(REAL_MODEL_CACHE))
    if not is_cached(get_local_model(E2E_MODEL), Path("/unused")):
        pytest.skip(f"the {E2E_MODEL} weights are not in {REAL_MODEL_CACHE} (run `make weights-small`)")
    return REAL_MODEL_CACHE


@pytest.fixture
def postgresql_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new, empty PostgreSQL database of this test's own (``tests/postgres.py``), as CHRYSALIS_DATABASE_URL too."""
    with postgres_database() as url:
        monkeypatch.setenv("CHRYSALIS_DATABASE_URL", url)  # the CLI in a subprocess uses it too
        yield url
