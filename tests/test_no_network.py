"""The test suite's own guard: only 127.0.0.1 is reachable from tests."""

from __future__ import annotations

import socket

import pytest


def test_a_connection_off_the_machine_fails_as_if_offline() -> None:
    with socket.socket() as sock, pytest.raises(OSError, match="may not use the network"):
        sock.connect(("192.0.2.1", 80))  # TEST-NET-1: never routed


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.connect(server.getsockname())
