"""``chrysalis approvals`` and ``chrysalis approve ID [--deny]``: the person's side of signed approvals.

``approve`` signs an envelope bound to the exact action the request shows (``runtime/envelopes.py``)
with the key from ``chrysalis keys init`` and stores it; the worker that waits for it verifies it
before the action runs. ``--deny`` signs a refusal the same way: the run goes on without the action.

The arguments of an action are printed as they are: the model wrote them, so they never pass through
rich's markup (``[white on white]`` would hide part of a command from the person approving it). A
person waits for ``approve``, and so does the run it wakes: it loads nothing it does not need (no rich,
no renderer), and its start-up is most of the time between the command and the run going on
(``docs/durable.md``, "How the run wakes").
"""

from __future__ import annotations

import datetime
import json

from chrysalis.config import chrysalis_home, load_settings
from chrysalis.errors import EXIT_OK
from chrysalis.runtime.approvals import ApprovalStore
from chrysalis.runtime.database import database_url, open_engine, unreachable

__all__ = ["approvals_command", "approve_command"]


def _url() -> str:
    settings = load_settings()
    if settings.warnings:  # the renderer (rich, the event types) is loaded only when there is one to show
        from chrysalis.cli.render import print_warnings

        print_warnings(settings.warnings)
    return database_url(settings)


def _store(url: str | None = None) -> ApprovalStore:
    from sqlalchemy.exc import OperationalError

    url = url or _url()
    try:
        return ApprovalStore(open_engine(url))
    except OperationalError as exc:
        raise unreachable(url, exc) from exc


def approvals_command(*, json_output: bool) -> int:
    """List the pending requests: id, run, tool and arguments."""
    from rich.console import Console
    from rich.table import Table

    with _store() as store:
        pending = store.pending()
    if json_output:
        print(json.dumps([request.to_json() for request in pending]))
        return EXIT_OK
    console = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)  # arguments shown as written
    if not pending:
        console.print("No approval is pending.")
        return EXIT_OK
    table = Table("id", "run", "tool", "arguments", "asked")
    for request in pending:
        asked = datetime.datetime.fromtimestamp(request.created_at).strftime("%Y-%m-%d %H:%M:%S")
        table.add_row(request.id, request.run_id, request.tool, json.dumps(request.args), asked)
    console.print(table)
    console.print("Approve one with `chrysalis approve ID`, refuse it with `chrysalis approve ID --deny`.")
    return EXIT_OK


def approve_command(request_id: str, *, deny: bool, json_output: bool) -> int:
    """Sign and store the decision on ``request_id``.

    Raises:
        UsageError: the id is unknown or already decided, there is no key (``chrysalis keys init``), or it is
            encrypted and no right passphrase was given (``CHRYSALIS_KEY_PASSPHRASE``, or typed in a terminal).
    """
    from chrysalis.cli.passphrase import PassphraseSource
    from chrysalis.runtime.envelopes import sign
    from chrysalis.runtime.keys import load_private
    from chrysalis.runtime.queue import approval_topic, wake

    url = _url()
    with _store(url) as store:
        request = store.get(request_id)
        key = load_private(chrysalis_home(), PassphraseSource().unlock())  # asked only for an encrypted key
        envelope = sign(
            key, request_id=request.id, tool=request.tool, args=request.args, decision="deny" if deny else "allow"
        )
        store.decide(envelope)
        # the waiting run looks now, not at its next timeout (on PostgreSQL through the store's connection)
        wake(url, request.run_id, approval_topic(request.id), store.engine)
    if json_output:
        print(json.dumps({"id": request.id, "decision": envelope.decision, "expires_at": envelope.expires_at}))
    else:
        verb = "Refused" if deny else "Approved"
        print(
            f"{verb} {request.tool} {json.dumps(request.args)} for run {request.run_id} (signed with key "
            f"{envelope.key_id}; usable once, until {datetime.datetime.fromtimestamp(envelope.expires_at):%H:%M:%S})."
        )
    return EXIT_OK
