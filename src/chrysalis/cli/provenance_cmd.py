"""``chrysalis provenance verify RUN [--json]``: check a council's signed records (``council/provenance.py``).

Exit 0 when every record verifies (it says how many), 1 at the first bad one (named by its seq,
type and persona, with the reason), 2 when there is nothing to check against: no such run, no
records key in this home, or a database that cannot be reached.
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape

from chrysalis.cli.queue_cmd import open_runs
from chrysalis.config import load_settings
from chrysalis.council.provenance import Verification, verify_run
from chrysalis.errors import EXIT_FAILED, EXIT_OK
from chrysalis.runtime.keys import RECORDS, fingerprint, load_public

__all__ = ["provenance_verify_command"]


def provenance_verify_command(run_id: str, *, json_output: bool) -> int:
    """Verify ``run_id``'s council records with this home's records public key.

    Raises:
        UsageError: no run ``run_id``, no records key, or the database cannot be reached (exit 2).
    """
    settings = load_settings()
    with open_runs(settings) as (_url, runs):
        runs.get(run_id)  # an unknown run is a usage error before a missing key is
        public = load_public(settings.home, role=RECORDS)
        result = verify_run(runs, run_id, public)
    if json_output:
        print(json.dumps(result.to_json()))
    else:
        Console(highlight=False, soft_wrap=True).print(escape(_said(result, fingerprint(public))))
    return EXIT_OK if result.ok else EXIT_FAILED


def _said(result: Verification, key: str) -> str:
    """The verdict as one line for people."""
    bad = result.first_bad
    if bad is None:
        if result.verified == 0:
            return f"Run {result.run_id} has no council records to verify."
        noun = "record" if result.verified == 1 else "records"
        return f"Run {result.run_id}: {result.verified} council {noun} verified (records key {key})."
    named = f"record {bad.seq}" if bad.type is None else f"record {bad.seq} ({bad.type}, {bad.persona or 'council'})"
    return f"Run {result.run_id}: {named} is bad: {bad.reason}. {result.verified} before it verified."
