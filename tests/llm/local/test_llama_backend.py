"""Unit tests of the backend's failure paths; the real model is exercised in test_e2e.py."""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from chrysalis.errors import UsageError, WeightsError
from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.local.llama_backend import ContextOverflowError, LlamaCppBackend, _Job, _Loaded


def test_missing_runtime_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(UsageError) as caught:
        LlamaCppBackend.load("qwen2.5-coder-0.5b", tmp_path)
    message = str(caught.value)
    assert "pip install 'chrysalis-forge[local]'" in message
    assert "-DGGML_AVX512=OFF" in message
    assert "make setup" in message


def test_missing_weights_name_the_fetch_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))  # installed, but never used
    with pytest.raises(WeightsError, match=r"chrysalis models fetch local:qwen2\.5-coder-0\.5b"):
        LlamaCppBackend.load("qwen2.5-coder-0.5b", tmp_path)


def test_unknown_model_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="Known local models"):
        LlamaCppBackend.load("gpt-5", tmp_path)


def test_context_overflow_message_says_what_to_trim() -> None:
    error = ContextOverflowError("qwen2.5-coder-0.5b", prompt_tokens=9000, max_tokens=512, n_ctx=8192)
    assert "9000 tokens" in str(error)
    assert "8192-token context window" in str(error)
    assert "Trim or compact the history" in str(error)


class FakeLlama:
    """Enough of llama-cpp-python's ``Llama`` for the prompt's prefill: records each batch it evaluates."""

    n_batch = 4

    def __init__(self, cached: list[int], on_eval: Callable[[list[int]], None] = lambda _batch: None) -> None:
        self.input_ids = list(cached)
        self.n_tokens = len(cached)
        self.batches: list[list[int]] = []
        self.completions = 0
        self._on_eval = on_eval

    @property
    def _input_ids(self) -> FakeIds:
        return FakeIds(self.input_ids)

    @staticmethod
    def longest_token_prefix(a: list[int], b: list[int]) -> int:
        return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return [int(word) for word in text.split()]

    def eval(self, tokens: list[int]) -> None:
        del self.input_ids[self.n_tokens :]
        self.batches.append(list(tokens))
        self.input_ids += tokens
        self.n_tokens += len(tokens)
        self._on_eval(tokens)

    def create_completion(self, **_: object) -> Iterator[dict[str, Any]]:
        self.completions += 1
        yield {"choices": [{"text": "7", "finish_reason": "stop"}]}


class FakeIds(list[int]):
    def __getitem__(self, index: Any) -> Any:
        result = super().__getitem__(index)
        return FakeIds(result) if isinstance(index, slice) else result

    def tolist(self) -> list[int]:
        return list(self)


def backend_with(llama: FakeLlama) -> LlamaCppBackend:
    def formatter(messages: list[dict[str, str]]) -> Any:
        return types.SimpleNamespace(prompt=messages[0]["content"], added_special=True, stop=[])

    return LlamaCppBackend("fake", _Loaded(llama, threading.Lock(), formatter), n_ctx=100)


def job(prompt: str, cancelled: threading.Event) -> _Job:
    return _Job([ChatMessage("user", prompt)], None, 8, 0.0, None, cancelled)


def test_the_prompt_is_evaluated_a_batch_at_a_time_after_the_cached_prefix() -> None:
    llama = FakeLlama(cached=[1, 2, 3, 9])
    completion = backend_with(llama)._run(job("1 2 3 4 5 6 7 8 9 10 11", threading.Event()))
    assert llama.batches == [[4, 5, 6, 7], [8, 9, 10]]  # the last token is left for create_completion
    assert completion.text == "7" and completion.cached_tokens == 3


def test_a_cancel_during_a_long_prompt_stops_at_the_next_batch() -> None:
    cancelled = threading.Event()
    llama = FakeLlama(cached=[], on_eval=lambda _batch: cancelled.set())  # cancelled while the first batch runs
    completion = backend_with(llama)._run(job("1 2 3 4 5 6 7 8 9 10 11 12 13", cancelled))
    assert llama.batches == [[1, 2, 3, 4]]
    assert completion.finish_reason == "cancelled" and llama.completions == 0
