"""The runtime's tables as ``create_all`` made them before migrations existed.

A database made then has no ``alembic_version``: its tables are checked (each must have the columns
below) and kept, the missing ones are created, and the database is at this revision from then on.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from chrysalis.errors import UsageError

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> list[sa.Table]:
    meta = sa.MetaData()
    return [
        sa.Table(
            "runs",
            meta,
            sa.Column("id", sa.String(64), primary_key=True),
            sa.Column("task", sa.Text, nullable=False),
            sa.Column("urgency", sa.String(16), nullable=False),
            sa.Column("status", sa.String(24), nullable=False),
            sa.Column("options", sa.Text, nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("updated_at", sa.Float, nullable=False),
            sa.Column("worker", sa.String(64)),
            sa.Column("result", sa.Text),
            sa.Column("error", sa.Text),
        ),
        sa.Table(
            "run_events",
            meta,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("run_id", sa.String(64), nullable=False),
            sa.Column("key", sa.String(64), nullable=False),
            sa.Column("at", sa.Float, nullable=False),
            sa.Column("event", sa.Text, nullable=False),
            sa.UniqueConstraint("run_id", "key"),
        ),
        sa.Table(
            "run_effects",
            meta,
            sa.Column("run_id", sa.String(64), primary_key=True),
            sa.Column("key", sa.String(64), primary_key=True),
            sa.Column("tool", sa.String(128), nullable=False),
            sa.Column("preimage", sa.Text, nullable=False),
            sa.Column("started_at", sa.Float, nullable=False),
        ),
        sa.Table(
            "workers",
            meta,
            sa.Column("id", sa.String(64), primary_key=True),
            sa.Column("host", sa.String(255), nullable=False),
            sa.Column("pid", sa.Integer, nullable=False),
            sa.Column("heartbeat_at", sa.Float, nullable=False),
            sa.Column("stopped", sa.Boolean, nullable=False),
            sa.Column("recovered_by", sa.String(64)),
        ),
        *_approval_tables(meta),
    ]


def _approval_tables(meta: sa.MetaData) -> list[sa.Table]:
    return [
        sa.Table(
            "approval_requests",
            meta,
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("run_id", sa.String(64), nullable=False),
            sa.Column("tool", sa.String(128), nullable=False),
            sa.Column("args", sa.Text, nullable=False),
            sa.Column("action", sa.String(64), nullable=False),
            sa.Column("created_at", sa.Float, nullable=False),
            sa.Column("status", sa.String(16), nullable=False),
            sa.Column("envelope", sa.Text),
        ),
        sa.Table(
            "approval_nonces",
            meta,
            sa.Column("nonce", sa.String(64), primary_key=True),
            sa.Column("request_id", sa.String(32), nullable=False),
            sa.Column("used_at", sa.Float, nullable=False),
        ),
        sa.Table(
            "approval_log",
            meta,
            sa.Column("request_id", sa.String(32), nullable=False),
            sa.Column("at", sa.Float, nullable=False),
            sa.Column("kind", sa.String(32), nullable=False),
            sa.Column("detail", sa.Text, nullable=False),
        ),
    ]


def upgrade() -> None:
    """Create each table, or check the one ``create_all`` made has its columns."""
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    for table in _tables():
        if not inspector.has_table(table.name):
            table.create(bind)
            continue
        found = {column["name"] for column in inspector.get_columns(table.name)}
        expected = {column.name for column in table.columns}
        if found != expected:
            raise UsageError(
                f"The runtime database has a table {table.name!r} with columns {sorted(found)}, not the "
                f"{sorted(expected)} Chrysalis made: it was not made by Chrysalis. Point CHRYSALIS_DATABASE_URL "
                "at a database of its own (`chrysalis config show` says where it is set)."
            )


def downgrade() -> None:
    """Drop the tables (``alembic downgrade base``): every run, event and approval is lost."""
    for table in reversed(_tables()):
        op.drop_table(table.name)
