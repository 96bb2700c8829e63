"""Where the approval key's passphrase comes from: ``CHRYSALIS_KEY_PASSPHRASE``, else a hidden prompt on a terminal.

The variable comes first, as ``ssh-keygen -N`` comes before its prompt: a worker, CI or a script sets it;
a person at a terminal who has not set it is asked, with the input hidden (``getpass``). With neither,
there is no passphrase, and the command that needed one stops with exit 2 and says how to give it
(``chrysalis.runtime.keys``). The passphrase is never a command-line value: that would land in the
shell history and in ``ps`` for every user of the machine.

``new_passphrase`` serves ``chrysalis keys init``: ``--passphrase`` takes the variable when it is set,
else asks twice in a terminal (the two must match, and an empty one is refused: leave out the flag for
an unencrypted key); the variable alone, without the flag, also encrypts a new key, so a key made where
the variable is set is one the same variable unlocks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from chrysalis.errors import UsageError
from chrysalis.runtime.keys import PASSPHRASE_VAR, Passphrase

__all__ = ["PassphraseSource"]


def _hidden(prompt: str) -> str:
    import getpass

    return getpass.getpass(prompt)


@dataclass(frozen=True)
class PassphraseSource:
    """The variable and the terminal a passphrase is read from (a test passes its own)."""

    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    """Where ``CHRYSALIS_KEY_PASSPHRASE`` is looked up."""
    interactive: Callable[[], bool] = field(default=lambda: sys.stdin.isatty())
    """Whether a person can be asked (stdin is a terminal)."""
    ask: Callable[[str], str] = _hidden
    """Put the prompt and read the answer without echoing it."""

    def from_env(self) -> str | None:
        """The variable's value, or None when it is unset or empty."""
        return self.environ.get(PASSPHRASE_VAR) or None

    def unlock(self) -> Passphrase:
        """The ``Passphrase`` for ``load_private``: the variable, else one hidden question; None with neither."""

        def passphrase(path: Path) -> str | None:
            found = self.from_env()
            if found is not None or not self.interactive():
                return found
            try:
                return self.ask(f"Passphrase for the approval key {path}: ") or None
            except EOFError:  # Ctrl-D: nothing given (Ctrl-C stays an interrupt, exit 130)
                return None

        return passphrase

    def new_passphrase(self, *, wanted: bool) -> str | None:
        """The passphrase to encrypt a new key with (None: store it unencrypted).

        Args:
            wanted: ``--passphrase`` was given: without the variable, ask twice in a terminal.

        Raises:
            UsageError: ``wanted`` with neither the variable nor a terminal; the two answers differ; or empty.
        """
        found = self.from_env()
        if found is not None or not wanted:
            return found
        if not self.interactive():
            raise UsageError(
                f"--passphrase needs a passphrase and none can be asked for here: set {PASSPHRASE_VAR} or run "
                "`chrysalis keys init --passphrase` in a terminal. Nothing was written."
            )
        try:
            first = self.ask("Passphrase for the new approval key (hidden): ")
            again = self.ask("The same passphrase again: ")
        except EOFError:
            first, again = "", ""
        if not first:
            raise UsageError(
                "The passphrase is empty: type one, or leave out --passphrase for an unencrypted key. "
                "Nothing was written."
            )
        if first != again:
            raise UsageError(
                "The two passphrases differ: run `chrysalis keys init --passphrase` again. Nothing was written."
            )
        return first
