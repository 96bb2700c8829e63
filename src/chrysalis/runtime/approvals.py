"""Approval requests in the runtime's database: asked by a run, signed by a person, checked by a worker.

    request   a run needs approval for one action: a row with the tool, its arguments and their hash
    decide    ``chrysalis approve ID [--deny]`` signs an envelope (``envelopes.sign``) and stores it
    check     the worker about to run the action verifies the stored envelope against the action it
              holds, with the public key it trusts; the nonce is consumed in the ``approval_nonces``
              table (its primary key makes a second use fail on every worker at once)

Every refusal is written to ``approval_log`` with its reason, and the request stays undecided, so
the run keeps waiting (or the person approves again). The request's arguments are stored only to
show the person what they approve; the worker checks the envelope against its own copy of the
action, so a row edited in the database cannot smuggle another action through.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError
from chrysalis.runtime.database import EngineStore
from chrysalis.runtime.envelopes import Envelope, Refusal, action_hash, verify
from chrysalis.runtime.schema import ensure_schema

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from sqlalchemy import Engine, Table

__all__ = ["ApprovalRequest", "ApprovalStore"]


@dataclass(frozen=True)
class ApprovalRequest:
    """One action waiting for (or given) a person's decision."""

    id: str
    run_id: str
    tool: str
    args: dict[str, Any]
    action: str
    created_at: float
    status: str
    """``pending``; ``signed`` once a decision is stored (not yet checked); ``used`` once a worker verified it."""
    envelope: dict[str, Any] | None

    @property
    def decision(self) -> str | None:
        """``allow`` or ``deny`` as the stored envelope says (unverified), or None while pending."""
        return str(self.envelope.get("decision")) if self.envelope else None

    def to_json(self) -> dict[str, Any]:
        """What ``chrysalis approvals --json`` prints for it."""
        return {
            "id": self.id,
            "run_id": self.run_id,
            "tool": self.tool,
            "args": self.args,
            "action": self.action,
            "created_at": self.created_at,
            "status": self.status,
            "decision": self.decision,
        }


class ApprovalStore(EngineStore):
    """The ``approval_requests``, ``approval_nonces`` and ``approval_log`` tables of one database."""

    def __init__(self, engine: Engine) -> None:
        """Use ``engine`` (``database.open_engine``); its tables are migrated to this code's revision if behind."""
        from sqlalchemy import Column, Float, MetaData, String, Table, Text

        self.engine = engine
        meta = MetaData()
        self._requests: Table = Table(
            "approval_requests",
            meta,
            Column("id", String(32), primary_key=True),
            Column("run_id", String(64), nullable=False),
            Column("tool", String(128), nullable=False),
            Column("args", Text, nullable=False),
            Column("action", String(64), nullable=False),
            Column("created_at", Float, nullable=False),
            Column("status", String(16), nullable=False),
            Column("envelope", Text),
        )
        self._nonces: Table = Table(
            "approval_nonces",
            meta,
            Column("nonce", String(64), primary_key=True),
            Column("request_id", String(32), nullable=False),
            Column("used_at", Float, nullable=False),
        )
        self._log: Table = Table(
            "approval_log",
            meta,
            Column("request_id", String(32), nullable=False),
            Column("at", Float, nullable=False),
            Column("kind", String(32), nullable=False),
            Column("detail", Text, nullable=False),
        )
        ensure_schema(engine)

    def request(self, run_id: str, tool: str, args: Mapping[str, Any]) -> ApprovalRequest:
        """Record that ``run_id`` waits for approval of ``tool`` with ``args``."""
        row = {
            "id": uuid.uuid4().hex[:12],
            "run_id": run_id,
            "tool": tool,
            "args": json.dumps(dict(args)),
            "action": action_hash(tool, args),
            "created_at": time.time(),
            "status": "pending",
            "envelope": None,
        }
        with self.engine.begin() as conn:
            conn.execute(self._requests.insert().values(**row))
        return self._from_row(row)

    def pending(self) -> list[ApprovalRequest]:
        """The requests nobody has decided yet, oldest first."""
        from sqlalchemy import select

        query = select(self._requests).where(self._requests.c.status == "pending").order_by(self._requests.c.created_at)
        with self.engine.connect() as conn:
            return [self._from_row(dict(row._mapping)) for row in conn.execute(query)]

    def get(self, request_id: str) -> ApprovalRequest:
        """The request ``request_id``.

        Raises:
            UsageError: there is none (the message says how to list the pending ones).
        """
        from sqlalchemy import select

        with self.engine.connect() as conn:
            row = conn.execute(select(self._requests).where(self._requests.c.id == request_id)).first()
        if row is None:
            raise UsageError(f"No approval request {request_id!r}: `chrysalis approvals` lists the pending ones.")
        return self._from_row(dict(row._mapping))

    def decide(self, envelope: Envelope) -> None:
        """Store a signed decision on its request (pending ones only: a decision is not replaced).

        Raises:
            UsageError: the request is unknown, or already decided.
        """
        current = self.get(envelope.request_id)
        if current.status != "pending":
            raise UsageError(
                f"Approval request {current.id} was already decided ({current.status}); a run asks "
                "again if it needs the action again."
            )
        with self.engine.begin() as conn:
            conn.execute(
                self._requests.update()
                .where(self._requests.c.id == envelope.request_id)
                .values(status="signed", envelope=json.dumps(envelope.to_json()))
            )

    def check(
        self,
        request_id: str,
        tool: str,
        args: Mapping[str, Any],
        public_key: Ed25519PublicKey,
        *,
        now: float | None = None,
    ) -> Envelope | Refusal | None:
        """The verified decision on the action ``tool(args)`` a worker is about to run; None while undecided.

        A verified decision marks the request ``used``. A refusal is logged, and the request goes back
        to ``pending``: the action does not run.
        """
        request = self.get(request_id)
        if request.envelope is None:
            return None
        verdict = verify(
            request.envelope,
            request_id=request_id,
            tool=tool,
            args=args,
            public_key=public_key,
            consume_nonce=lambda nonce: self._consume(nonce, request_id),
            now=now,
        )
        if isinstance(verdict, Refusal):
            self.refuse(request_id, verdict)
            return verdict
        with self.engine.begin() as conn:
            conn.execute(self._requests.update().where(self._requests.c.id == request_id).values(status="used"))
        return verdict

    def refuse(self, request_id: str, refusal: Refusal) -> None:
        """Log ``refusal`` and put the request back to ``pending`` (its envelope is dropped)."""
        with self.engine.begin() as conn:
            conn.execute(
                self._log.insert().values(
                    request_id=request_id, at=time.time(), kind=refusal.kind, detail=refusal.detail
                )
            )
            conn.execute(
                self._requests.update().where(self._requests.c.id == request_id).values(status="pending", envelope=None)
            )

    def log(self, request_id: str) -> list[tuple[str, str]]:
        """The refusals logged for ``request_id``, oldest first: ``(kind, detail)``."""
        from sqlalchemy import select

        query = select(self._log.c.kind, self._log.c.detail).where(self._log.c.request_id == request_id)
        with self.engine.connect() as conn:
            return [(row.kind, row.detail) for row in conn.execute(query.order_by(self._log.c.at))]

    def _consume(self, nonce: str, request_id: str) -> bool:
        """Record ``nonce`` as used; False when it was used before (by this worker or any other)."""
        from sqlalchemy.exc import IntegrityError

        try:
            with self.engine.begin() as conn:
                conn.execute(self._nonces.insert().values(nonce=nonce, request_id=request_id, used_at=time.time()))
        except IntegrityError:
            return False
        return True

    @staticmethod
    def _from_row(row: Mapping[str, Any]) -> ApprovalRequest:
        envelope = json.loads(row["envelope"]) if row["envelope"] else None
        return ApprovalRequest(
            row["id"],
            row["run_id"],
            row["tool"],
            json.loads(row["args"]),
            row["action"],
            row["created_at"],
            row["status"],
            envelope,
        )
