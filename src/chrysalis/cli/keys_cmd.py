"""``chrysalis keys init``: the Ed25519 key pair that signs approvals (``chrysalis.runtime.keys``).

``--passphrase`` (or ``CHRYSALIS_KEY_PASSPHRASE``) stores a new private key encrypted; where the
passphrase comes from is ``chrysalis.cli.passphrase``. A key already there is never rewritten, so
``--passphrase`` on an unencrypted one is refused (exit 2) rather than reported as done.
"""

from __future__ import annotations

import json

from rich.console import Console

from chrysalis.cli.passphrase import PassphraseSource
from chrysalis.config import chrysalis_home
from chrysalis.errors import EXIT_OK, UsageError
from chrysalis.runtime.keys import PASSPHRASE_VAR, PRIVATE_NAME, KeyPair, init_keys, is_encrypted, keys_dir

__all__ = ["keys_init_command"]


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
