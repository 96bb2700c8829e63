"""Alembic's environment for the runtime's tables: run only by ``chrysalis.runtime.schema``.

The caller holds the migration lock and passes its connection in ``config.attributes["connection"]``;
the migrations run in that connection's transaction (on PostgreSQL they commit with the lock).
``render_as_batch`` lets a later revision alter a column on SQLite (copy and move, as Alembic does there).

A new revision is a file ``versions/NNNN_what.py`` with ``down_revision`` the previous one; add its
id to ``schema.REVISIONS`` (a test checks the two agree).
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("chrysalis.runtime.schema.ensure_schema applies these migrations; run it, not `alembic`.")
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
