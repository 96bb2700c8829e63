"""Unit tests of the backend's failure paths; the real model is exercised in test_e2e.py."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from chrysalis.errors import UsageError, WeightsError
from chrysalis.llm.local.llama_backend import ContextOverflowError, LlamaCppBackend


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
