"""The approval key pair: Ed25519, under ``$CHRYSALIS_HOME/keys``, made once and never overwritten.

A worker runs an action that needs approval only when an envelope for it verifies against the
public key here (``envelopes.py``), so the private key is what stands between a model and a
dangerous action: it is written with mode 0600 (no window in which another user could read it:
the file is created with that mode), and a private key that group or others can read is refused
when loaded, as ssh refuses one. ``init_keys`` on a folder that has keys keeps them: a new key
pair would silently void every approval signed so far, and a lost private key cannot be undone.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = ["PRIVATE_NAME", "PUBLIC_NAME", "KeyPair", "fingerprint", "init_keys", "load_private", "load_public"]

PRIVATE_NAME = "approval_ed25519"
PUBLIC_NAME = "approval_ed25519.pub"


@dataclass(frozen=True)
class KeyPair:
    """Where the key pair is, its fingerprint, and whether ``init_keys`` made it just now."""

    private: Path
    public: Path
    fingerprint: str
    created: bool


def keys_dir(home: Path) -> Path:
    return home / "keys"


def init_keys(home: Path) -> KeyPair:
    """Make the key pair under ``home/keys`` unless it is there already (then it is kept, and reported)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = keys_dir(home)
    private_path, public_path = folder / PRIVATE_NAME, folder / PUBLIC_NAME
    if private_path.exists():
        if not public_path.exists():  # the public half lost: it follows from the private one
            public_path.write_bytes(_public_pem(load_private(home).public_key()))
        return KeyPair(private_path, public_path, fingerprint(load_public(home)), created=False)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # O_EXCL: two `keys init` at once cannot both write; the mode is set at creation, never widened after.
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)
    public_path.write_bytes(_public_pem(key.public_key()))
    return KeyPair(private_path, public_path, fingerprint(key.public_key()), created=True)


def _public_pem(public: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def load_private(home: Path) -> Ed25519PrivateKey:
    """The private key, for signing.

    Raises:
        UsageError: there is none (run ``chrysalis keys init``), group or others may read it, or it is no
            Ed25519 private key.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = _existing(home, PRIVATE_NAME)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"{path} has mode {mode:o}: others could read the approval key. Run `chmod 600 {path}`.")
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, Ed25519PrivateKey):
        raise _not_a_key(path, "private")
    return key


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
