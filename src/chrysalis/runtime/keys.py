"""The key pairs under ``$CHRYSALIS_HOME/keys``: Ed25519, each made once and never overwritten.

There are two, each a ``KeyRole`` with its own files, and nothing signed with one verifies under the
other (each signs under its own domain tag too):

    APPROVAL  approval_ed25519[.pub]  a person's yes to one dangerous action (``envelopes.py``);
              made by ``chrysalis keys init``, optionally encrypted with a passphrase
    RECORDS   records_ed25519[.pub]   the council's records (``chrysalis.council.records``); made
              unencrypted at first use by ``records_key`` (its docstring says why)

Every function takes ``role=`` (default ``APPROVAL``), so the rules below hold for both.

A worker runs an action that needs approval only when an envelope for it verifies against the
public key here (``envelopes.py``), so the private key is what stands between a model and a
dangerous action: it is written with mode 0600 (no window in which another user could read it:
the file is created with that mode), and a private key that group or others can read is refused
when loaded, as ssh refuses one. ``init_keys`` on a folder that has keys keeps them: a new key
pair would silently void every approval signed so far, and a lost private key cannot be undone.

The private key may be stored encrypted with a passphrase (PKCS#8 under ``cryptography``'s
``BestAvailableEncryption``: PBES2, AES-256-CBC; ``chrysalis keys init --passphrase``), so a copy of the
file alone signs nothing. Whether it is encrypted is read from its PEM header, so an unencrypted key
loads as it always did and nobody is asked for anything. For an encrypted one ``load_private`` asks a
``Passphrase`` (the CLI's reads ``CHRYSALIS_KEY_PASSPHRASE``, else prompts on a terminal); no
passphrase, a wrong one or an unreadable file is a ``UsageError`` (exit 2) that names the file and the fix.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "APPROVAL",
    "PASSPHRASE_VAR",
    "PRIVATE_NAME",
    "PUBLIC_NAME",
    "RECORDS",
    "KeyPair",
    "KeyRole",
    "Passphrase",
    "fingerprint",
    "init_keys",
    "is_encrypted",
    "keys_dir",
    "load_private",
    "load_public",
    "records_key",
]

PRIVATE_NAME = "approval_ed25519"
PUBLIC_NAME = "approval_ed25519.pub"
PASSPHRASE_VAR = "CHRYSALIS_KEY_PASSPHRASE"
"""The environment variable that holds the private key's passphrase where nobody can type it (a worker, CI)."""
_ENCRYPTED_HEADER = b"-----BEGIN ENCRYPTED PRIVATE KEY-----"


@dataclass(frozen=True)
class KeyRole:
    """One key pair's files under ``keys/`` and the words its errors use for it."""

    private: str
    """The private half's file name."""
    public: str
    """The public half's file name."""
    label: str
    """What messages call it: "approval key"."""
    made_by: str
    """How one is made, said when there is none: "run `chrysalis keys init` first"."""
    replace: str
    """How to replace a damaged one, and what that costs."""


APPROVAL = KeyRole(
    PRIVATE_NAME,
    PUBLIC_NAME,
    "approval key",
    "run `chrysalis keys init` first",
    "move it away and run `chrysalis keys init` (approvals signed with the old key will no longer verify)",
)
RECORDS = KeyRole(
    "records_ed25519",
    "records_ed25519.pub",
    "council records key",
    "it is made by the first `chrysalis council` in this home",
    "move both halves away: the next `chrysalis council` makes a new pair (records signed with the old key "
    "will no longer verify)",
)

Passphrase = Callable[[Path], str | None]
"""Asked for the passphrase of the encrypted key at the path (only then); None or "" when there is none to give."""


@dataclass(frozen=True)
class KeyPair:
    """Where the key pair is, its fingerprint, and whether ``init_keys`` made it just now."""

    private: Path
    public: Path
    fingerprint: str
    created: bool
    encrypted: bool = False
    """Whether the private key is stored encrypted with a passphrase."""


def keys_dir(home: Path) -> Path:
    """The folder of the key pairs: ``home/keys``."""
    return home / "keys"


def init_keys(
    home: Path, passphrase: str | None = None, *, unlock: Passphrase | None = None, role: KeyRole = APPROVAL
) -> KeyPair:
    """Make ``role``'s key pair under ``home/keys`` unless it is there already (then it is kept, and reported).

    Two processes that make the same pair at once end with one pair: the private half is written
    whole to a file of its own, then linked into place, which fails for the later one (it keeps
    the pair the first made). So no process ever reads half a key.

    Args:
        home: ``$CHRYSALIS_HOME``.
        passphrase: Encrypt a new private key with it (None or "": stored unencrypted). A kept key is never
            rewritten, so it stays as it is.
        unlock: Asked for a kept encrypted key's passphrase when its public half is lost and must be restored
            (default: ``passphrase``).
        role: Which pair (``APPROVAL`` or ``RECORDS``).
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = keys_dir(home)
    private_path, public_path = folder / role.private, folder / role.public
    if not private_path.exists():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        key = Ed25519PrivateKey.generate()
        encryption: serialization.KeySerializationEncryption = serialization.NoEncryption()
        if passphrase:
            encryption = serialization.BestAvailableEncryption(passphrase.encode())
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
        if _create(private_path, pem):
            _write_whole(public_path, _public_pem(key.public_key()))
            return KeyPair(
                private_path, public_path, fingerprint(key.public_key()), created=True, encrypted=bool(passphrase)
            )
    if not public_path.exists():  # the public half lost (or not written yet): it follows from the private one
        restored = load_private(home, unlock or (lambda _path: passphrase), role=role)
        _write_whole(public_path, _public_pem(restored.public_key()))
    encrypted = is_encrypted(home, role=role)
    return KeyPair(
        private_path, public_path, fingerprint(load_public(home, role=role)), created=False, encrypted=encrypted
    )


def records_key(home: Path) -> Ed25519PrivateKey:
    """The council records' private key, made (unencrypted, mode 600) at its first use.

    Unencrypted, unlike the approval key may be, because councils run unattended (a worker, CI, a
    scheduled job) with nobody there to type a passphrase, and because of what the key can do: it
    vouches that this home wrote a council's records, in this order, unchanged. It authorises
    nothing, so a stolen copy could forge minutes but never run an action; the approval key, which
    lets a model's action run, keeps its passphrase option. Being a pair of its own, it is never
    the approval pair, and a record never verifies as an approval (each signs under its own domain tag).

    Raises:
        UsageError: the key there is damaged, unreadable, or readable by group or others.
    """
    init_keys(home, role=RECORDS)
    return load_private(home, role=RECORDS)


def _create(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` (mode 600) unless a file is there; False when one is (another process won).

    The data is written to a file of its own first, created with mode 600 (never widened after),
    then hard-linked to ``path``: the link is atomic and fails if ``path`` exists, so ``path`` is
    never seen half written and never overwritten.
    """
    spare = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.link(spare, path)
    except FileExistsError:
        return False
    finally:
        spare.unlink(missing_ok=True)
    return True


def _write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never a part."""
    spare = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    spare.write_bytes(data)
    spare.replace(path)


def _public_pem(public: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def load_private(home: Path, passphrase: Passphrase | None = None, *, role: KeyRole = APPROVAL) -> Ed25519PrivateKey:
    """``role``'s private key, for signing; ``passphrase`` is asked only when the key is stored encrypted.

    Raises:
        UsageError: there is none (``role.made_by`` says how to make one), group or others may read it, it
            cannot be read, it is encrypted and no passphrase was given or the one given is wrong, or it is no
            Ed25519 private key.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = _existing(home, role, role.private)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"{path} has mode {mode:o}: others could read the {role.label}. Run `chmod 600 {path}`.")
    pem = _read(path, role)
    secret = _secret(path, passphrase, role) if pem.lstrip().startswith(_ENCRYPTED_HEADER) else None
    try:
        key = serialization.load_pem_private_key(pem, password=secret)
    except ValueError as exc:
        if secret is not None:  # a damaged encrypted file decrypts to garbage too: the same words cover it
            raise UsageError(
                f"Wrong passphrase for the {role.label} {path} (or the file is damaged): check {PASSPHRASE_VAR}, "
                "or type it again when asked."
            ) from exc
        key = None
    except TypeError:
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise _not_a_key(path, "private", role)
    return key


def is_encrypted(home: Path, *, role: KeyRole = APPROVAL) -> bool:
    """Whether ``role``'s private key is stored encrypted (read from its PEM header; nothing asked).

    Raises:
        UsageError: there is none, or it cannot be read.
    """
    return _read(_existing(home, role, role.private), role).lstrip().startswith(_ENCRYPTED_HEADER)


def _secret(path: Path, passphrase: Passphrase | None, role: KeyRole) -> bytes:
    """The passphrase for the encrypted key at ``path``, as bytes; none to give is an error saying how to give one."""
    given = passphrase(path) if passphrase is not None else None
    if not given:
        raise UsageError(
            f"The {role.label} {path} is encrypted and no passphrase was given: set {PASSPHRASE_VAR} or run "
            "in a terminal to be asked for it."
        )
    return given.encode()


def _read(path: Path, role: KeyRole) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"Cannot read the {role.label} {path} ({exc.strerror or exc}): it must be a file you own with "
            f"mode 600 (`ls -l {path}`; `chmod 600 {path}`)."
        ) from exc


def load_public(home: Path, *, role: KeyRole = APPROVAL) -> Ed25519PublicKey:
    """``role``'s public key, for verifying.

    Raises:
        UsageError: there is none (``role.made_by`` says how to make one), or it is no Ed25519 public key.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    path = _existing(home, role, role.public)
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise _not_a_key(path, "public", role)
    return key


def _existing(home: Path, role: KeyRole, name: str) -> Path:
    path = keys_dir(home) / name
    if not path.is_file():
        raise UsageError(f"No {role.label} at {path}: {role.made_by}.")
    return path


def _not_a_key(path: Path, half: str, role: KeyRole) -> ConfigError:
    return ConfigError(f"{path} is not an Ed25519 {half} key; {role.replace}.")


def fingerprint(public: Ed25519PublicKey) -> str:
    """A short name for a public key (SHA-256 of its raw bytes, 16 hex digits): which key signed an envelope."""
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]
