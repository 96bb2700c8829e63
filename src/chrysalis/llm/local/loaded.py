"""Contexts llama.cpp loaded once per process and shared by their users, freed before the interpreter ends.

Loading weights takes a second and hundreds of MB, so a chat model (``llama_backend``) and an
embedding context (``llama_embedder``) are each loaded once per key and handed to every user.
They are freed by ``atexit``: left to the garbage collector at interpreter exit, llama-cpp-python
frees its models after ctypes is torn down and prints a traceback.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["LoadedCache", "LoadedContext"]


class LoadedContext(Protocol):
    """What the cache needs of a loaded context: the ``Llama`` and the lock its calls take."""

    llama: Any
    lock: threading.Lock


K = TypeVar("K", bound=Hashable)
V = TypeVar("V", bound=LoadedContext)


class LoadedCache(Generic[K, V]):
    """One loaded context per key, loaded on first use (under a lock, so never twice)."""

    def __init__(self) -> None:
        self._loaded: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K, load: Callable[[], V]) -> V:
        """The context of ``key``, calling ``load()`` the first time (its errors reach the caller, nothing kept)."""
        with self._lock:
            loaded = self._loaded.get(key)
            if loaded is None:
                if not self._loaded:
                    atexit.register(self.unload)  # registering twice is harmless: the second call finds none
                loaded = load()
                self._loaded[key] = loaded
            return loaded

    def keys(self) -> list[K]:
        """The keys loaded now (diagnostics and tests)."""
        with self._lock:
            return list(self._loaded)

    def unload(self) -> None:
        """Free every context now, each once its running call has finished."""
        with self._lock:
            loaded = list(self._loaded.values())
            self._loaded.clear()
        for one in loaded:
            with one.lock:
                one.llama.close()
