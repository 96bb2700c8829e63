"""The test suite's own guards: only 127.0.0.1 is reachable, and no test sees the developer's settings."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.config import chrysalis_home as configured_home
from tests.helpers import PROVIDER_KEYS


def test_a_connection_off_the_machine_fails_as_if_offline() -> None:
    with socket.socket() as sock, pytest.raises(OSError, match="may not use the network"):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: never routed


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.connect(server.getsockname())


@pytest.fixture(scope="module")
def developer_environment() -> Iterator[None]:
    """A developer's shell, set before any per-test fixture runs (module fixtures come first)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHRYSALIS_SOMETHING_NEW", "from the developer's shell")
        patch.setenv("CHRYSALIS_MODEL", "openai:gpt-4o")
        patch.setenv("CHRYSALIS_HOME", "/home/developer/.chrysalis")
        for key in PROVIDER_KEYS:
            patch.setenv(key, "sk-real-key")
        yield


@pytest.mark.usefixtures("developer_environment")
def test_no_chrysalis_variable_but_the_temporary_home_leaks_in(chrysalis_home: Path) -> None:
    visible = {key: value for key, value in os.environ.items() if key.startswith("CHRYSALIS_")}
    assert visible == {"CHRYSALIS_HOME": str(chrysalis_home)}
    assert configured_home() == chrysalis_home
    assert not [key for key in PROVIDER_KEYS if key in os.environ]
