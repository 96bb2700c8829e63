"""A PostgreSQL database of its own for each test that needs one, on the server of ``TEST_POSTGRES_URL``.

``scripts/postgres_for_tests.sh`` prints that URL (CI sets it); without it the tests skip, saying why.
The database named in the URL is never touched: each test gets ``chrysalis_t_<random>``, created
before and dropped (``WITH (FORCE)``, so a worker left connected cannot keep it) after.
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
                conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
    finally:
        admin.dispose()
