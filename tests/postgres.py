"""A PostgreSQL database of its own for each test that needs one, on the server of ``TEST_POSTGRES_URL``.

``scripts/postgres_for_tests.sh`` prints that URL (CI sets it); without it the tests skip, saying why.
The database named in the URL is never touched: each test gets ``chrysalis_t_<random>``, created
before and dropped after: the test role's sessions still on it are ended first (a worker left
connected cannot keep it), then a plain ``DROP DATABASE``, which also stops an autovacuum worker on it.
``WITH (FORCE)`` cannot: it refuses to end a session of a role it is not a member of, autovacuum's
included, so it failed now and then after a test had made many tables ("must be a member of the role
whose process is being terminated or member of pg_signal_backend").
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

__all__ = ["SKIP_REASON", "postgres_database", "server_url"]

SKIP_REASON = "TEST_POSTGRES_URL is not set (scripts/postgres_for_tests.sh prints one; CI sets it)"


def server_url() -> str:
    """``TEST_POSTGRES_URL``, or skip the test."""
    url = os.environ.get("TEST_POSTGRES_URL")
    if not url:
        pytest.skip(SKIP_REASON)
    return url


@contextmanager
def postgres_database() -> Iterator[str]:
    """The URL of a new, empty database on the test server; dropped when the block ends."""
    from sqlalchemy import create_engine, text

    url = server_url()
    name = f"chrysalis_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
        try:
            yield url.rsplit("/", 1)[0] + f"/{name}"
        finally:
            with admin.connect() as conn:
                conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :name AND usename = current_user AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                )
                conn.execute(text(f"DROP DATABASE IF EXISTS {name}"))  # waits for the ended sessions to go
    finally:
        admin.dispose()
