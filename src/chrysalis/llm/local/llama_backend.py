"""The embedded model: a ``ChatBackend`` over llama.cpp (llama-cpp-python), in process.

Why it looks the way it does:

- **No server, one model per process.** Loading takes a second and hundreds of MB, so loaded
  models live in a process-wide cache keyed by (weights file, context size): several runs, agents
  or sub-agents in one process share one ``Llama``. One ``Llama`` is not thread-safe, so each
  carries a lock and calls are serialized.
- **Constrained output.** Small models invent tool names and wrap JSON in fences. With a JSON
  schema, decoding follows a grammar built from it (cached per schema), so the text is always
  valid JSON of the allowed shape.
- **KV-cache reuse.** llama-cpp-python keeps the previous prompt's tokens and evaluates only the
  part after the longest common prefix. An agent's steps share the system prompt and history, so
  the second step of a run costs only its new tokens (measured: 781-token prompt, 6.8 s cold,
  0.8 s warm on 2 cores). This works because every call of one model goes through the same
  ``Llama`` object.
- **The GGUF's own chat template** renders the messages (as ``create_chat_completion`` does);
  rendering it here lets us count the prompt's tokens *before* the call, refuse a prompt that
  cannot fit with a clear error, and report exact usage even when streaming.
- **Blocking C code runs in a worker thread**, so the event loop keeps serving; streamed pieces
  are handed back to the loop's thread, in order, before ``complete`` returns.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from chrysalis.errors import ModelError, UsageError
from chrysalis.llm.backend import AnswerOdds, ChatMessage, Completion
from chrysalis.llm.local.catalog import DEFAULT_N_CTX, get_local_model
from chrysalis.llm.local.choice import answer_logprobs
from chrysalis.llm.local.loaded import LoadedCache
from chrysalis.llm.local.weights import load_weights_path

__all__ = ["ContextOverflowError", "LlamaCppBackend", "loaded_models", "unload_models"]

_INSTALL_HINT = (
    "The embedded model needs llama-cpp-python, which is not installed. Run `make setup`, or install the "
    'extra with the flags these machines need: CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON '
    '-DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" '
    "pip install 'chrysalis-forge[local]'. Or choose a remote model with --model (e.g. openai:gpt-4o-mini)."
)
# Greedy decoding needs no repetition penalty, and one would distort edits whose old and new text
# repeat the same code, so it is off.
_REPEAT_PENALTY = 1.0


class ContextOverflowError(ModelError):
    """The prompt plus the room for the answer does not fit in the model's context window.

    Raised before any work is done, so the caller can trim the history and try again.
    """

    def __init__(self, model: str, prompt_tokens: int, max_tokens: int, n_ctx: int) -> None:
        super().__init__(
            f"The prompt for local:{model} is {prompt_tokens} tokens; with room for {max_tokens} answer tokens it "
            f"exceeds the {n_ctx}-token context window. Trim or compact the history, lower max_tokens, "
            "or load the model with a larger n_ctx."
        )
        self.prompt_tokens = prompt_tokens
        self.max_tokens = max_tokens
        self.n_ctx = n_ctx


@dataclass
class _Loaded:
    """One loaded model, shared by every backend that uses the same weights and context size."""

    llama: Any
    lock: threading.Lock
    formatter: Any
    """The GGUF's chat template, as a llama-cpp-python ``Jinja2ChatFormatter``."""


_MODELS: LoadedCache[tuple[Path, int], _Loaded] = LoadedCache()


def loaded_models() -> list[tuple[Path, int]]:
    """The (weights file, n_ctx) pairs loaded in this process, for diagnostics and tests."""
    return _MODELS.keys()


def unload_models() -> None:
    """Free every loaded model now (also done at exit: ``llm/local/loaded.py``)."""
    _MODELS.unload()


class LlamaCppBackend:
    """A chat model run in process by llama.cpp, with JSON-schema constrained decoding."""

    def __init__(self, name: str, loaded: _Loaded, n_ctx: int) -> None:
        self._name = name
        self._loaded = loaded
        self._n_ctx = n_ctx

    @classmethod
    def load(
        cls, model: str, home: Path, *, n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None
    ) -> LlamaCppBackend:
        """Load a catalog model (e.g. ``qwen2.5-coder-0.5b``) from the verified weights cache.

        Never downloads: missing weights raise ``WeightsError`` naming the fetch command. A model
        already loaded with the same weights and ``n_ctx`` is reused (``n_threads`` then keeps its
        first value). ``n_threads`` defaults to every CPU this process may use, because
        llama-cpp-python's default (half the cores) halves generation speed on small machines.

        Raises:
            UsageError: unknown model name, or llama-cpp-python is not installed.
            WeightsError: the weights are not assembled or fail their checksum.
            ModelError: llama.cpp could not load the file.
        """
        info = get_local_model(model)
        llama_cpp = llama_cpp_module()  # first: installing the runtime comes before fetching weights
        path = load_weights_path(info, home)

        def load() -> _Loaded:
            return _load_llama(llama_cpp, path, n_ctx, n_threads or cpu_count())

        return cls(info.name, _MODELS.get((path.resolve(), n_ctx), load), n_ctx)

    @property
    def name(self) -> str:
        """The catalog name, e.g. ``qwen2.5-coder-1.5b``."""
        return self._name

    @property
    def supports_json_schema(self) -> bool:
        """Always true: llama.cpp decodes under a grammar built from the schema."""
        return True

    @property
    def n_ctx(self) -> int:
        """The context window this model was loaded with, in tokens."""
        return self._n_ctx

    def count_tokens(self, messages: list[ChatMessage]) -> int:
        """How many tokens ``messages`` take once rendered by the chat template (for trimming history)."""
        with self._loaded.lock:
            return len(self._render(messages)[0])

    async def complete(
        self,
        messages: list[ChatMessage],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        on_text: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> Completion:
        """Produce the next assistant message, streaming pieces to ``on_text`` on the caller's loop.

        Raises:
            ContextOverflowError: the prompt and ``max_tokens`` do not fit in ``n_ctx``.
            ModelError: llama.cpp failed while generating.
        """
        # Not sort_keys: the grammar emits properties in schema order (the tool name before its arguments).
        grammar = _grammar_for(json.dumps(json_schema)) if json_schema is not None else None
        loop = asyncio.get_running_loop()
        emit = None if on_text is None else (lambda piece: loop.call_soon_threadsafe(on_text, piece))
        cancelled = threading.Event()
        job = _Job(messages, grammar, max_tokens, temperature, emit, cancelled, seed)
        try:
            return await asyncio.to_thread(self._run, job)
        except asyncio.CancelledError:
            cancelled.set()  # the worker stops at its next token and releases the model
            raise

    async def answer_odds(self, messages: list[ChatMessage], answers: list[str]) -> AnswerOdds:
        """How likely each of ``answers`` is as the whole reply to ``messages`` (micro-questions' fast path).

        Raises:
            ContextOverflowError: the prompt does not fit in ``n_ctx``.
            ModelError: llama.cpp failed while evaluating.
        """

        def run() -> AnswerOdds:
            with self._loaded.lock:
                prompt, _ = self._render(messages)
                return self._weigh(prompt, answers, self._loaded.llama.token_eos())

        return await asyncio.to_thread(run)

    async def text_odds(self, prompt: str, answers: list[str], end: str = "\n") -> AnswerOdds:
        """How likely each of ``answers`` is to follow the raw text ``prompt``, then ``end`` (no chat template).

        The completion form of a micro-question: a code model continues a transcript (a Python REPL,
        ``>>> print(A[0])`` then the value) the way it saw millions of them, where a chat turn asks it to
        talk. ``end`` must be one token (a newline is).

        Raises:
            ValueError: ``end`` is not one token.
            ContextOverflowError: the prompt does not fit in ``n_ctx``.
            ModelError: llama.cpp failed while evaluating.
        """

        def run() -> AnswerOdds:
            with self._loaded.lock:
                llama = self._loaded.llama
                stop = llama.tokenize(end.encode("utf-8"), add_bos=False, special=False)
                if len(stop) != 1:
                    raise ValueError(f"the end of a weighed answer must be one token; {end!r} is {len(stop)}")
                return self._weigh(
                    llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=False), answers, stop[0]
                )

        return await asyncio.to_thread(run)

    def _weigh(self, prompt: list[int], answers: list[str], end: int) -> AnswerOdds:
        """``answer_logprobs`` after ``prompt`` (caller holds the model's lock), with the errors named."""
        if len(prompt) + 8 > self._n_ctx:
            raise ContextOverflowError(self._name, len(prompt), 8, self._n_ctx)
        try:
            return answer_logprobs(self._loaded.llama, prompt, answers, end)
        except Exception as exc:
            raise ModelError(f"local:{self._name} failed while weighing answers: {exc}") from exc

    def _run(self, job: _Job) -> Completion:
        """Generate under the model's lock (worker thread)."""
        with self._loaded.lock:
            prompt, stop = self._render(job.messages)
            if len(prompt) + job.max_tokens > self._n_ctx:
                raise ContextOverflowError(self._name, len(prompt), job.max_tokens, self._n_ctx)
            llama = self._loaded.llama
            cached = llama.longest_token_prefix(llama._input_ids[: llama.n_tokens].tolist(), prompt)
            try:
                if not self._prefill(job, prompt):
                    return Completion(
                        text="",
                        input_tokens=len(prompt),
                        output_tokens=0,
                        finish_reason="cancelled",
                        cached_tokens=cached,
                    )
                text, finish = self._generate(job, prompt, stop)
                output_tokens = len(self._loaded.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))
            except Exception as exc:
                raise ModelError(f"local:{self._name} failed while generating: {exc}") from exc
        return Completion(
            text=text, input_tokens=len(prompt), output_tokens=output_tokens, finish_reason=finish, cached_tokens=cached
        )

    def _prefill(self, job: _Job, prompt: list[int]) -> bool:
        """Evaluate the prompt's uncached tokens one batch at a time; ``False`` if cancelled between batches.

        llama-cpp-python evaluates the whole prompt in one uninterruptible call, which on 2 cores can
        take minutes for a long history: a run past its ``--timeout`` (or Ctrl-C) would wait for it.
        Done here, the wait is one batch. The last token is left for ``create_completion``, which
        finds the rest cached and evaluates only that one to get the logits it samples from.
        """
        llama = self._loaded.llama
        start = llama.longest_token_prefix(llama._input_ids[: llama.n_tokens].tolist(), prompt)
        end = len(prompt) - 1
        if start >= end:
            return not job.cancelled.is_set()
        llama.n_tokens = start  # eval() drops the cache past this point first
        for first in range(start, end, llama.n_batch):
            if job.cancelled.is_set():
                return False
            llama.eval(prompt[first : min(first + llama.n_batch, end)])
        return not job.cancelled.is_set()

    def _generate(self, job: _Job, prompt: list[int], stop: list[str]) -> tuple[str, str]:
        """Stream a completion of ``prompt``; llama-cpp-python reuses the KV cache's common prefix."""
        stream = self._loaded.llama.create_completion(
            prompt=prompt,
            max_tokens=job.max_tokens,
            temperature=job.temperature,
            repeat_penalty=_REPEAT_PENALTY,
            stop=stop,
            grammar=job.grammar,
            stream=True,
            seed=job.seed,
        )
        pieces: list[str] = []
        finish = "stop"
        for chunk in stream:
            choice = chunk["choices"][0]
            piece: str = choice["text"]
            if job.cancelled.is_set():
                stream.close()
                finish = "cancelled"
                break
            if piece:
                pieces.append(piece)
                if job.emit is not None:
                    job.emit(piece)
            finish = choice.get("finish_reason") or finish
        return "".join(pieces), finish

    def _render(self, messages: list[ChatMessage]) -> tuple[list[int], list[str]]:
        """Render ``messages`` with the GGUF's chat template and tokenize them (caller holds the lock)."""
        result = self._loaded.formatter(messages=[{"role": m.role, "content": m.content} for m in messages])
        tokens: list[int] = self._loaded.llama.tokenize(
            result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True
        )
        stop = result.stop if isinstance(result.stop, list) else [result.stop] if result.stop else []
        return tokens, stop


@dataclass(frozen=True)
class _Job:
    """What one ``complete`` call asks the worker thread to do."""

    messages: list[ChatMessage]
    grammar: Any
    max_tokens: int
    temperature: float
    emit: Callable[[str], object] | None
    cancelled: threading.Event
    seed: int | None = None


def llama_cpp_module() -> Any:
    """Import llama-cpp-python only when a local model is used: it is heavy and optional."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise UsageError(_INSTALL_HINT) from exc


def _load_llama(llama_cpp: Any, path: Path, n_ctx: int, n_threads: int) -> _Loaded:
    """Load the GGUF quietly (verbose=False keeps llama.cpp's log lines off the terminal)."""
    try:
        llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelError(f"llama.cpp could not load {path}: {exc}") from exc
    chat_format = importlib.import_module("llama_cpp.llama_chat_format")
    template = llama.metadata.get("tokenizer.chat_template")
    if not template:
        raise ModelError(f"{path} has no chat template in its metadata; it cannot be used as a chat model.")
    formatter = chat_format.Jinja2ChatFormatter(
        template=template,
        eos_token=_token_text(llama, llama.token_eos()),
        bos_token=_token_text(llama, llama.token_bos()),
        stop_token_ids=[llama.token_eos()],
    )
    return _Loaded(llama=llama, lock=threading.Lock(), formatter=formatter)


def _token_text(llama: Any, token: int) -> str:
    """The text of a special token (such as EOS), which the chat template may insert."""
    return "" if token == -1 else bytes(llama.detokenize([token], special=True)).decode("utf-8", errors="replace")


@lru_cache(maxsize=64)
def _grammar_for(schema_json: str) -> Any:
    """Build (once per schema) the grammar that constrains decoding to ``schema_json``."""
    llama_cpp = llama_cpp_module()
    try:
        return llama_cpp.LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as exc:
        raise ValueError(f"This JSON schema cannot be turned into a llama.cpp grammar: {exc}") from exc


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
