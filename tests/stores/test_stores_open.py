from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from chrysalis.config import Settings
from chrysalis.errors import ConfigError, UsageError
from chrysalis.stores import Context, Stores
from chrysalis.stores.db import SCHEMA_VERSION


def test_open_creates_home_database_and_trace_file(home: Path) -> None:
    settings = Settings(home=home)
    with Stores.open(home) as stores:
        assert settings.db_path.is_file()
        assert settings.traces_path.is_file()
        assert stores.db.integrity_check() == "ok"
    conn = sqlite3.connect(settings.db_path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    finally:
        conn.close()


def test_reopen_keeps_data_and_does_not_migrate_twice(home: Path) -> None:
    with Stores.open(home) as stores:
        stores.context.save(Context(system="be brief"))
    with Stores.open(home) as stores:
        assert stores.context.load().system == "be brief"
        assert len(stores.db.read("SELECT * FROM schema_version")) == 1


def test_not_a_database_is_a_config_error_naming_the_file_and_fix(home: Path) -> None:
    home.mkdir()
    db_file = home / "chrysalis.db"
    db_file.write_bytes(b"this is not sqlite at all, just text" * 100)
    with pytest.raises(ConfigError) as info:
        Stores.open(home)
    message = str(info.value)
    assert str(db_file) in message
    assert f"mv {db_file} {db_file}.bad" in message
    assert "aside" in message
    assert info.value.exit_code == 2


def test_truncated_database_is_a_config_error(home: Path) -> None:
    with Stores.open(home) as stores:
        stores.context.save(Context(system="x" * 10_000))
    db_file = home / "chrysalis.db"
    data = db_file.read_bytes()
    for extra in home.glob("chrysalis.db-*"):
        extra.unlink()
    db_file.write_bytes(b"SQLite format 3\x00" + b"\xff" * (len(data) - 16))
    with pytest.raises(ConfigError, match=r"chrysalis\.db"):
        Stores.open(home)


def test_database_from_a_newer_version_is_refused(home: Path) -> None:
    Stores.open(home).close()
    conn = sqlite3.connect(home / "chrysalis.db")
    with conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 5,))
    conn.close()
    with pytest.raises(ConfigError, match="newer") as info:
        Stores.open(home)
    assert "Upgrade chrysalis-forge" in str(info.value)


def test_home_that_is_a_file_is_a_config_error(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "home"
    not_a_dir.write_text("oops")
    with pytest.raises(ConfigError, match="CHRYSALIS_HOME"):
        Stores.open(not_a_dir)


def test_trace_file_that_cannot_be_opened_is_a_config_error(home: Path) -> None:
    (home / "traces.jsonl").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"traces\.jsonl"):
        Stores.open(home)


def test_closed_stores_refuse_use(home: Path) -> None:
    stores = Stores.open(home)
    stores.close()
    with pytest.raises(sqlite3.ProgrammingError):
        stores.context.load()
    with pytest.raises(sqlite3.ProgrammingError):
        stores.traces.record("r", {"type": "start"})
    stores.close()  # closing twice is harmless


def test_config_error_is_a_usage_error() -> None:
    assert issubclass(ConfigError, UsageError)
