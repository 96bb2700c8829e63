"""``chrysalis keys [init]``: the Ed25519 key pairs (``chrysalis.runtime.keys``).

``keys init`` makes the pair that signs approvals; ``keys`` alone shows each pair's fingerprint: the
approval pair's and the council records pair's (made by the first council, never by ``init``).

``--passphrase`` (or ``CHRYSALIS_KEY_PASSPHRASE``) stores a new private key encrypted; where the
passphrase comes from is ``chrysalis.cli.passphrase``. A key already there is never rewritten, so
``--passphrase`` on an unencrypted one is refused (exit 2) rather than reported as done.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console

from chrysalis.cli.passphrase import PassphraseSource
from chrysalis.config import chrysalis_home
from chrysalis.errors import EXIT_OK, UsageError
from chrysalis.runtime.keys import (
    APPROVAL,
    PASSPHRASE_VAR,
    PRIVATE_NAME,
    RECORDS,
    KeyPair,
    KeyRole,
    fingerprint,
    init_keys,
    is_encrypted,
    keys_dir,
    load_public,
)

__all__ = ["keys_init_command", "keys_show_command"]

_ROLES = {"approval": APPROVAL, "records": RECORDS}
"""The pairs ``keys`` shows, by the name its JSON gives each."""


def keys_init_command(*, json_output: bool, passphrase: bool = False, source: PassphraseSource | None = None) -> int:
    """Make the key pair, or report the one there (it is never overwritten).

    Raises:
        UsageError: ``passphrase`` and the key there is not encrypted, or no passphrase could be had.
    """
    source = source or PassphraseSource()
    home = chrysalis_home()
    if (keys_dir(home) / PRIVATE_NAME).exists():
        if passphrase and not is_encrypted(home):
            raise UsageError(
                f"The approval key {keys_dir(home) / PRIVATE_NAME} is already there, unencrypted, and `keys init` "
                "never rewrites a key: leave out --passphrase to keep it, or move it away and run "
                "`chrysalis keys init --passphrase` for a new, encrypted pair (approvals signed with the old "
                "key will no longer verify)."
            )
        pair = init_keys(home, unlock=source.unlock())
    else:
        pair = init_keys(home, source.new_passphrase(wanted=passphrase))
    if json_output:
        print(
            json.dumps(
                {
                    "private_key": str(pair.private),
                    "public_key": str(pair.public),
                    "fingerprint": pair.fingerprint,
                    "created": pair.created,
                    "encrypted": pair.encrypted,
                }
            )
        )
        return EXIT_OK
    _say(pair)
    return EXIT_OK


def _say(pair: KeyPair) -> None:
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
    if pair.encrypted:
        lost = " A forgotten passphrase cannot be recovered." if pair.created else ""
        console.print(
            f"The private key is encrypted: `chrysalis approve` reads the passphrase from {PASSPHRASE_VAR}, "
            f"or asks for it in a terminal.{lost}"
        )


def keys_show_command(*, json_output: bool) -> int:
    """Show each key pair's fingerprint and files (``keys`` alone); nothing is made.

    Raises:
        UsageError: a public key there is damaged (the message says how to replace it).
    """
    home = chrysalis_home()
    pairs = {name: _pair(home, role) for name, role in _ROLES.items()}
    if json_output:
        print(json.dumps(pairs))
        return EXIT_OK
    console = Console(highlight=False, soft_wrap=True)
    for name, role in _ROLES.items():
        pair = pairs[name]
        if pair is None:
            console.print(f"{role.label}: none yet ({role.made_by})")
        elif pair["fingerprint"] is None:
            console.print(f"{role.label}: {pair['private_key']}, its public half is missing ({role.made_by})")
        else:
            encrypted = ", private key encrypted" if pair["encrypted"] else ""
            console.print(f"{role.label} {pair['fingerprint']}: {pair['public_key']}{encrypted}")
    return EXIT_OK


def _pair(home: Path, role: KeyRole) -> dict[str, Any] | None:
    """The pair's fingerprint, files and whether its private half is encrypted; None when neither half is there."""
    private, public = keys_dir(home) / role.private, keys_dir(home) / role.public
    if not private.exists() and not public.exists():
        return None
    return {
        "fingerprint": fingerprint(load_public(home, role=role)) if public.exists() else None,
        "public_key": str(public) if public.exists() else None,
        "private_key": str(private) if private.exists() else None,
        "encrypted": is_encrypted(home, role=role) if private.exists() else None,
    }
