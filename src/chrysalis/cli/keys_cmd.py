"""``chrysalis keys init``: the Ed25519 key pair that signs approvals (``chrysalis.runtime.keys``)."""

from __future__ import annotations

import json

from rich.console import Console

from chrysalis.config import chrysalis_home
from chrysalis.errors import EXIT_OK
from chrysalis.runtime.keys import init_keys

__all__ = ["keys_init_command"]


def keys_init_command(*, json_output: bool) -> int:
    """Make the key pair, or report the one there (it is never overwritten)."""
    pair = init_keys(chrysalis_home())
    if json_output:
        print(
            json.dumps(
                {
                    "private_key": str(pair.private),
                    "public_key": str(pair.public),
                    "fingerprint": pair.fingerprint,
                    "created": pair.created,
                }
            )
        )
        return EXIT_OK
    console = Console(highlight=False, soft_wrap=True)
    if pair.created:
        console.print(
            f"Made the approval key pair {pair.fingerprint}: private {pair.private} (mode 600, keep it "
            f"secret; back it up), public {pair.public}."
        )
    else:
        console.print(
            f"The approval key pair {pair.fingerprint} is already at {pair.private}; kept (never "
            "overwritten: approvals signed with it stay valid)."
        )
    return EXIT_OK
