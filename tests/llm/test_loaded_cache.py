"""The process's cache of loaded llama.cpp contexts: loaded once per key, a failed load keeps nothing, freed whole."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from chrysalis.errors import ModelError
from chrysalis.llm.local.loaded import LoadedCache


class FakeLlama:
    def __init__(self) -> None:
        self.closed = threading.Event()

    def close(self) -> None:
        self.closed.set()


@dataclass
class Context:
    llama: Any = field(default_factory=FakeLlama)
    lock: threading.Lock = field(default_factory=threading.Lock)


def test_concurrent_users_of_one_key_share_one_load() -> None:
    cache: LoadedCache[str, Context] = LoadedCache()
    loads: list[Context] = []
    gate = threading.Barrier(4)

    def load() -> Context:
        loads.append(Context())
        return loads[-1]

    def use(_: int) -> Context:
        gate.wait()  # all four ask at once
        return cache.get("weights.gguf", load)

    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(use, range(4)))
    assert len(loads) == 1 and all(context is loads[0] for context in got)
    assert cache.get("other.gguf", Context) is not loads[0] and cache.keys() == ["weights.gguf", "other.gguf"]


def test_a_failed_load_keeps_nothing_and_the_next_use_tries_again() -> None:
    cache: LoadedCache[str, Context] = LoadedCache()

    def broken() -> Context:
        raise ModelError("llama.cpp could not load weights.gguf")

    with pytest.raises(ModelError, match="could not load"):
        cache.get("weights.gguf", broken)
    assert cache.keys() == []
    assert isinstance(cache.get("weights.gguf", Context), Context)


def test_unload_closes_each_context_once_its_running_call_ends() -> None:
    cache: LoadedCache[str, Context] = LoadedCache()
    idle, busy = cache.get("a", Context), cache.get("b", Context)
    busy.lock.acquire()  # a call is running on "b"
    unloading = threading.Thread(target=cache.unload)
    unloading.start()
    assert idle.llama.closed.wait(timeout=60)  # the idle one is closed at once
    assert cache.keys() == [] and not busy.llama.closed.is_set()  # the busy one waits for its call
    busy.lock.release()
    unloading.join()
    assert busy.llama.closed.is_set()
