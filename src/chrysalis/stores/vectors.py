"""sqlite-vec in our SQLite connection where it can be had: the memory store ranks vectors with it.

sqlite-vec (a pinned dependency) is a loadable SQLite extension. Python's ``sqlite3`` loads
extensions only when the interpreter was built with ``--enable-loadable-sqlite-extensions``
(Debian's is; pyenv's and python.org's macOS builds are not). Where ``load_extension`` is missing,
the extension's entry point is registered with ``sqlite3_auto_extension`` of the SQLite library
that Python's own ``_sqlite3`` module uses, for the one ``connect`` call, and cancelled right
after, so no other connection of the process gets it. Where neither works (no wheel for this
platform, a SQLite that refuses it), ``VectorSupport.problem`` says why and the memory store ranks
by words alone.
"""

from __future__ import annotations

import ctypes
import functools
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["VectorSupport", "connect"]

_lock = threading.Lock()
"""The auto-extension is process-wide while it is registered: one ``connect`` at a time takes it."""


@dataclass(frozen=True)
class VectorSupport:
    """Whether a connection can rank vectors (sqlite-vec loaded), and if not, why."""

    version: str | None = None
    """sqlite-vec's version in this connection (``v0.1.9``), or None when it is not loaded."""
    problem: str = ""
    """Why it is not loaded (empty when it is)."""

    @property
    def available(self) -> bool:
        """True when ``vec_distance_cosine`` and the other sqlite-vec functions can be called."""
        return self.version is not None


def connect(path: Path, **kwargs: Any) -> tuple[sqlite3.Connection, VectorSupport]:
    """``sqlite3.connect(path, **kwargs)``, with sqlite-vec loaded into the connection when possible.

    Raises:
        sqlite3.Error: the database itself cannot be opened (as ``sqlite3.connect`` would).
    """
    extension, problem = _extension_file()
    if extension is None:
        return sqlite3.connect(path, **kwargs), VectorSupport(problem=problem)
    if _loads_extensions():
        conn = sqlite3.connect(path, **kwargs)
        return conn, _load(conn, extension)
    try:
        with _lock, _AutoExtension(extension):
            conn = sqlite3.connect(path, **kwargs)
    except (OSError, AttributeError, sqlite3.Error) as exc:  # no such symbol or library, or the init failed
        reason = f"it could not be registered with SQLite ({exc})"
        return sqlite3.connect(path, **kwargs), VectorSupport(problem=f"sqlite-vec is not loaded: {reason}")
    return conn, _probe(conn)


def _loads_extensions() -> bool:
    """Whether this Python's ``sqlite3`` was built to load extensions (``enable_load_extension``)."""
    return hasattr(sqlite3.Connection, "enable_load_extension")


@functools.cache
def _extension_file() -> tuple[Path | None, str]:
    """The sqlite-vec shared library of the installed package, or None and why not."""
    try:
        import sqlite_vec
    except ImportError:
        return None, "sqlite-vec is not installed (pip install sqlite-vec)"
    base = Path(sqlite_vec.loadable_path())
    found = sorted(base.parent.glob(base.name + ".*"))
    if not found:
        return None, f"sqlite-vec has no shared library for this platform in {base.parent}"
    return found[0], ""


def _load(conn: sqlite3.Connection, extension: Path) -> VectorSupport:
    """The documented way, where this Python allows it."""
    try:
        conn.enable_load_extension(True)
        try:
            conn.load_extension(str(extension.with_suffix("")))
        finally:
            conn.enable_load_extension(False)
    except sqlite3.Error as exc:
        return VectorSupport(problem=f"sqlite-vec could not be loaded ({exc})")
    return _probe(conn)


def _probe(conn: sqlite3.Connection) -> VectorSupport:
    try:
        version = conn.execute("SELECT vec_version()").fetchone()[0]
    except sqlite3.Error as exc:
        return VectorSupport(problem=f"sqlite-vec is not loaded: this Python's SQLite did not take it ({exc})")
    return VectorSupport(version=str(version))


class _AutoExtension:
    """``sqlite3_auto_extension`` of ``_sqlite3``'s SQLite for the duration of a ``with`` block."""

    def __init__(self, extension: Path) -> None:
        import _sqlite3

        sqlite = ctypes.CDLL(_sqlite3.__file__)  # its symbols include those of the SQLite it links
        self._register = sqlite.sqlite3_auto_extension
        self._cancel = sqlite.sqlite3_cancel_auto_extension
        self._register.argtypes = self._cancel.argtypes = [ctypes.c_void_p]
        self._register.restype = self._cancel.restype = ctypes.c_int
        entry: Any = ctypes.CDLL(str(extension)).sqlite3_vec_init
        self._entry = ctypes.cast(entry, ctypes.c_void_p)

    def __enter__(self) -> None:
        code = self._register(self._entry)
        if code != 0:
            raise OSError(f"sqlite3_auto_extension returned {code}")

    def __exit__(self, *_exc: object) -> None:
        self._cancel(self._entry)
