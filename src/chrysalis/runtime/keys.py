"""The approval key pair: Ed25519, under ``$CHRYSALIS_HOME/keys``, made once and never overwritten.

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
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "PASSPHRASE_VAR",
    "PRIVATE_NAME",
    "PUBLIC_NAME",
    "KeyPair",
    "Passphrase",
    "fingerprint",
    "init_keys",
    "is_encrypted",
    "load_private",
    "load_public",
]

PRIVATE_NAME = "approval_ed25519"
PUBLIC_NAME = "approval_ed25519.pub"
PASSPHRASE_VAR = "CHRYSALIS_KEY_PASSPHRASE"
"""The environment variable that holds the private key's passphrase where nobody can type it (a worker, CI)."""
_ENCRYPTED_HEADER = b"-----BEGIN ENCRYPTED PRIVATE KEY-----"

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
    return home / "keys"


def init_keys(home: Path, passphrase: str | None = None, *, unlock: Passphrase | None = None) -> KeyPair:
    """Make the key pair under ``home/keys`` unless it is there already (then it is kept, and reported).

    Args:
        home: ``$CHRYSALIS_HOME``.
        passphrase: Encrypt a new private key with it (None or "": stored unencrypted). A kept key is never
            rewritten, so it stays as it is.
        unlock: Asked for a kept encrypted key's passphrase when its public half is lost and must be restored
            (default: ``passphrase``).
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = keys_dir(home)
    private_path, public_path = folder / PRIVATE_NAME, folder / PUBLIC_NAME
    if private_path.exists():
        if not public_path.exists():  # the public half lost: it follows from the private one
            restored = load_private(home, unlock or (lambda _path: passphrase))
            public_path.write_bytes(_public_pem(restored.public_key()))
        encrypted = is_encrypted(home)
        return KeyPair(private_path, public_path, fingerprint(load_public(home)), created=False, encrypted=encrypted)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    encryption: serialization.KeySerializationEncryption = serialization.NoEncryption()
    if passphrase:
        encryption = serialization.BestAvailableEncryption(passphrase.encode())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption)
    # O_EXCL: two `keys init` at once cannot both write; the mode is set at creation, never widened after.
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    public_path.write_bytes(_public_pem(key.public_key()))
    return KeyPair(private_path, public_path, fingerprint(key.public_key()), created=True, encrypted=bool(passphrase))


def _public_pem(public: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def load_private(home: Path, passphrase: Passphrase | None = None) -> Ed25519PrivateKey:
    """The private key, for signing; ``passphrase`` is asked only when the key is stored encrypted.

    Raises:
        UsageError: there is none (run ``chrysalis keys init``), group or others may read it, it cannot be
            read, it is encrypted and no passphrase was given or the one given is wrong, or it is no
            Ed25519 private key.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = _existing(home, PRIVATE_NAME)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"{path} has mode {mode:o}: others could read the approval key. Run `chmod 600 {path}`.")
    pem = _read(path)
    secret = _secret(path, passphrase) if pem.lstrip().startswith(_ENCRYPTED_HEADER) else None
    try:
        key = serialization.load_pem_private_key(pem, password=secret)
    except ValueError as exc:
        if secret is not None:  # a damaged encrypted file decrypts to garbage too: the same words cover it
            raise UsageError(
                f"Wrong passphrase for the approval key {path} (or the file is damaged): check {PASSPHRASE_VAR}, "
                "or type it again when asked."
            ) from exc
        key = None
    except TypeError:
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise _not_a_key(path, "private")
    return key


def is_encrypted(home: Path) -> bool:
    """Whether the private key under ``home/keys`` is stored encrypted (read from its PEM header; nothing asked).

    Raises:
        UsageError: there is none, or it cannot be read.
    """
    return _read(_existing(home, PRIVATE_NAME)).lstrip().startswith(_ENCRYPTED_HEADER)


def _secret(path: Path, passphrase: Passphrase | None) -> bytes:
    """The passphrase for the encrypted key at ``path``, as bytes; none to give is an error saying how to give one."""
    given = passphrase(path) if passphrase is not None else None
    if not given:
        raise UsageError(
            f"The approval key {path} is encrypted and no passphrase was given: set {PASSPHRASE_VAR} or run "
            "in a terminal to be asked for it."
        )
    return given.encode()


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"Cannot read the approval key {path} ({exc.strerror or exc}): it must be a file you own with "
            f"mode 600 (`ls -l {path}`; `chmod 600 {path}`)."
        ) from exc


def load_public(home: Path) -> Ed25519PublicKey:
    """The public key, for verifying.

    Raises:
        UsageError: there is none (run ``chrysalis keys init``), or it is no Ed25519 public key.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    path = _existing(home, PUBLIC_NAME)
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PublicKey):
        raise _not_a_key(path, "public")
    return key


def _existing(home: Path, name: str) -> Path:
    path = keys_dir(home) / name
    if not path.is_file():
        raise UsageError(f"No approval key at {path}: run `chrysalis keys init` first.")
    return path


def _not_a_key(path: Path, half: str) -> ConfigError:
    return ConfigError(
        f"{path} is not an Ed25519 {half} key; move it away and run `chrysalis keys init` (approvals "
        "signed with the old key will no longer verify)."
    )


def fingerprint(public: Ed25519PublicKey) -> str:
    """A short name for a public key (SHA-256 of its raw bytes, 16 hex digits): which key signed an envelope."""
    from cryptography.hazmat.primitives import serialization

    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]
