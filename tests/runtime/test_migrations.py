"""The runtime's schema is versioned: old databases are upgraded, newer ones refused, doctor shows the revision.

On SQLite (a file under CHRYSALIS_HOME) and on PostgreSQL (a database of the test's own, ``postgresql_url``).
Processes racing to migrate an empty database: ``test_start_race.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, inspect, text

from chrysalis.config import load_settings
from chrysalis.runtime.approvals import ApprovalStore
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.runs import RunStore
from chrysalis.runtime.schema import HEAD, MIGRATIONS, REVISIONS, schema_revision
from tests.helpers import assert_clean_error, chrysalis
from tests.runtime.migration_helpers import make_old_database


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest) -> str:
    """The runtime database's URL: SQLite under CHRYSALIS_HOME, or a PostgreSQL database of this test's own."""
    if request.param == "postgresql":
        request.getfixturevalue("postgresql_url")  # sets CHRYSALIS_DATABASE_URL
    return database_url(load_settings({}))


def test_the_revisions_listed_are_alembic_s_chain() -> None:
    script = ScriptDirectory(str(MIGRATIONS))
    assert [rev.revision for rev in reversed(list(script.walk_revisions()))] == list(REVISIONS)
    assert script.get_current_head() == HEAD


def test_the_migrations_make_exactly_the_tables_the_stores_use(url: str) -> None:
    engine = open_engine(url)
    meta = MetaData()
    for store in (RunStore(engine), ApprovalStore(engine)):
        for table in vars(store).values():
            if hasattr(table, "to_metadata"):
                table.to_metadata(meta)
    with engine.connect() as conn:
        assert schema_revision(conn) == HEAD
        assert compare_metadata(MigrationContext.configure(conn), meta) == []
    engine.dispose()


def test_an_old_database_is_upgraded_in_place_with_its_rows_kept(url: str, tmp_path: Path) -> None:
    engine = open_engine(url)
    make_old_database(engine, names={"runs", "run_events", "run_effects", "workers"})  # a submit made it, no approvals
    listed = chrysalis("queue", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "old1" in listed.stdout and "kept task" in listed.stdout
    assert chrysalis("approvals", cwd=tmp_path).returncode == 0  # its tables were added
    with engine.connect() as conn:
        assert schema_revision(conn) == HEAD
        assert inspect(conn).has_table("approval_requests")
        assert conn.execute(text("SELECT task FROM runs WHERE id = 'old1'")).scalar() == "kept task"
    engine.dispose()


def test_a_table_of_another_program_is_a_clear_error(url: str, tmp_path: Path) -> None:
    engine = open_engine(url)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT)"))
    engine.dispose()
    done = chrysalis("queue", cwd=tmp_path)
    assert_clean_error(done, 2, "has a table 'runs' with columns ['id', 'name']", "CHRYSALIS_DATABASE_URL")


def test_a_database_newer_than_the_code_is_exit_2_naming_both_revisions(url: str, tmp_path: Path) -> None:
    engine = open_engine(url)
    RunStore(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    engine.dispose()
    for args in (["queue"], ["submit", "fix it"], ["worker", "--exit-when-idle"], ["approvals"]):
        done = chrysalis(*args, cwd=tmp_path)
        assert_clean_error(done, 2, "schema revision '0099'", f"(it writes {HEAD!r})", "Upgrade chrysalis-forge")
    doctor = chrysalis("doctor", "--json", cwd=tmp_path)
    database = json.loads(doctor.stdout)["sections"]["database"]
    assert database["runtime"]["schema_revision"] == "0099" and database["runtime"]["schema_head"] == HEAD
    (problem,) = database["problems"]
    assert f"'0099', newer than this Chrysalis knows ({HEAD!r})" in problem["problem"]
    assert "upgrade chrysalis-forge" in problem["fix"]


def test_doctor_shows_the_revision_and_whether_it_is_behind(url: str, tmp_path: Path) -> None:
    before = json.loads(chrysalis("doctor", "--json", cwd=tmp_path).stdout)["sections"]["database"]
    assert before["runtime"]["schema_revision"] is None and before["runtime"]["schema_behind"] is True
    assert before["ok"], before
    assert chrysalis("queue", cwd=tmp_path).returncode == 0
    shown = chrysalis("doctor", cwd=tmp_path).stdout
    assert f"schema revision {HEAD} (current)" in shown, shown


def test_wrong_credentials_are_a_clear_error_without_the_password(postgresql_url: str, tmp_path: Path) -> None:
    wrong = postgresql_url.replace("chrysalis:chrysalis@", "chrysalis:n0tit@", 1)
    assert wrong != postgresql_url
    done = chrysalis("queue", cwd=tmp_path, env={"CHRYSALIS_DATABASE_URL": wrong})
    assert_clean_error(done, 2, "Cannot open the runtime database postgresql://chrysalis:***@", "password")
    assert "n0tit" not in done.stdout + done.stderr
