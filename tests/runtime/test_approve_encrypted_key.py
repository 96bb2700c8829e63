"""``chrysalis approve`` with an encrypted key: the passphrase from the variable or a terminal, else exit 2.

Whatever stops it (no passphrase, a wrong one), nothing is signed: the request stays pending, and
the message is one line that names the key file and how to give the passphrase.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import subprocess
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.runtime.approvals import ApprovalStore
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.envelopes import Envelope
from chrysalis.runtime.keys import PRIVATE_NAME, init_keys, load_public
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD, assert_clean_error, chrysalis

SECRET = "correct horse battery staple"
ARGS = {"command": "make deploy"}


@pytest.fixture
def home() -> Path:
    home = Path(os.environ["CHRYSALIS_HOME"])
    init_keys(home, SECRET)
    return home


@pytest.fixture
def store(home: Path) -> Iterator[ApprovalStore]:
    with ApprovalStore(open_engine(database_url(load_settings({})))) as opened:
        yield opened


def test_the_variable_unlocks_the_key_and_the_worker_side_verifies(home: Path, store: ApprovalStore) -> None:
    asked = store.request("run1", "shell", ARGS)
    approved = chrysalis("approve", asked.id, "--json", env={"CHRYSALIS_KEY_PASSPHRASE": SECRET})
    assert approved.returncode == 0, approved.stderr
    verdict = store.check(asked.id, "shell", ARGS, load_public(home))  # what the waiting worker does
    assert isinstance(verdict, Envelope) and verdict.decision == "allow"


def test_a_wrong_or_missing_passphrase_exits_2_in_one_line_and_signs_nothing(home: Path, store: ApprovalStore) -> None:
    asked = store.request("run1", "shell", ARGS)
    private = home / "keys" / PRIVATE_NAME
    wrong = chrysalis("approve", asked.id, env={"CHRYSALIS_KEY_PASSPHRASE": "not it"})
    assert_clean_error(wrong, 2, f"Wrong passphrase for the approval key {private}", "CHRYSALIS_KEY_PASSPHRASE")
    missing = chrysalis("approve", asked.id)  # stdin is not a terminal: nobody can be asked
    assert_clean_error(missing, 2, str(private), "set CHRYSALIS_KEY_PASSPHRASE or run in a terminal")
    for done in (wrong, missing):
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert [request.id for request in store.pending()] == [asked.id]


def _on_a_terminal(args: list[str], answers: list[str]) -> tuple[int, str]:
    """Run ``chrysalis ARGS`` with a pseudo-terminal as its controlling terminal; type each answer at each prompt."""
    primary, secondary = pty.openpty()

    def take_the_terminal() -> None:  # the new session's controlling terminal: where getpass asks
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(
        [*CHRYSALIS, *args],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        start_new_session=True,
        preexec_fn=take_the_terminal,
    )
    os.close(secondary)
    try:
        screen = _answer(primary, answers)
        return process.wait(timeout=CLI_HANG_GUARD), screen
    finally:
        os.close(primary)
        if process.poll() is None:  # a hang: do not leave it behind
            process.kill()
            process.wait()


def _answer(primary: int, answers: list[str]) -> str:
    """Everything the process shows; each answer typed once a prompt (``...: ``) is the last thing on the screen.

    Only then: getpass turns echo off before it prompts and flushes unread input when it turns echo back
    on, so an answer typed early would be echoed, or lost.
    """
    screen = ""
    while True:
        ready, _, _ = select.select([primary], [], [], CLI_HANG_GUARD)  # a hang guard, not a timing assertion
        assert ready, f"no output for {CLI_HANG_GUARD} s: {screen!r}"
        try:
            chunk = os.read(primary, 4096).decode("utf-8", errors="replace")
        except OSError:  # EIO: the process closed the terminal
            return screen
        if not chunk:
            return screen
        screen += chunk
        if answers and screen.endswith(": "):
            os.write(primary, (answers.pop(0) + "\n").encode())


def test_on_a_terminal_the_passphrase_is_asked_twice_for_a_new_key_then_once_to_sign() -> None:
    home = Path(os.environ["CHRYSALIS_HOME"])
    code, screen = _on_a_terminal(["keys", "init", "--passphrase"], [SECRET, SECRET])
    assert code == 0, screen
    assert "Passphrase for the new approval key (hidden):" in screen and "The same passphrase again:" in screen
    assert "The private key is encrypted" in screen and SECRET not in screen  # never echoed
    with ApprovalStore(open_engine(database_url(load_settings({})))) as store:
        asked = store.request("run1", "shell", ARGS)
        code, screen = _on_a_terminal(["approve", asked.id], [SECRET])
        assert code == 0, screen
        assert f"Passphrase for the approval key {home / 'keys' / PRIVATE_NAME}:" in screen and SECRET not in screen
        assert isinstance(store.check(asked.id, "shell", ARGS, load_public(home)), Envelope)
