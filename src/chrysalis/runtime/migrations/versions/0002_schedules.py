"""Scheduled runs: which schedule and slot submitted a run, and where each event trigger has read to.

``runs.schedule`` and ``runs.slot`` are empty for a run someone submitted; ``schedule_cursors`` holds,
per event trigger (``chrysalis schedule add --on EVENT``), the last ``run_events`` position it has looked at.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the two columns to ``runs`` and create ``schedule_cursors``."""
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("schedule", sa.String(64)))
        batch.add_column(sa.Column("slot", sa.String(40)))
    op.create_table(
        "schedule_cursors",
        sa.Column("schedule", sa.String(64), primary_key=True),
        sa.Column("after", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    """Drop them again (the runs stay; which schedule submitted them is lost)."""
    op.drop_table("schedule_cursors")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("slot")
        batch.drop_column("schedule")
