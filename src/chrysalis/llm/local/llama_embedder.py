"""Embeddings from the embedded model: llama.cpp in process, with ``embedding=True`` and mean pooling.

``embeddings = "local"`` (the default embedded model) or ``"local:NAME"`` (another catalog model).

- **Loaded lazily, once.** Nothing is loaded until memory needs a vector. The first ``embed`` loads
  the verified weights (never downloading them) into a llama.cpp context made for embeddings: a
  chat context cannot give them, so this is a second ``Llama``. The file is memory-mapped, so its
  pages are shared with a chat model of the same weights; the context is for ``N_CTX`` tokens.
  One per weights file per process, shared by every ``LocalEmbedder``, freed at exit
  (``unload_embedders``).
- **The vector.** llama.cpp averages the last hidden states of the text's tokens (mean pooling); the
  mean is L2-normalised, then the mean of the normalised vectors of a few fixed, unrelated
  sentences (``REFERENCE``) is subtracted and the result L2-normalised again. A chat model's hidden
  states all point much the same way, so the cosines of unrelated texts are high and close
  together; removing the shared direction (the first step of "all-but-the-top", Mu & Viswanath,
  2018) spreads them out again. The reference sentences cost one short batch at load.
- **What it is not.** Qwen2.5-Coder is a chat model, not one trained for embeddings: its vectors
  find related wording and paraphrases, not reliably the same meaning in different words. A text
  longer than ``N_CTX`` tokens is embedded by its first ``N_CTX``.

The vector space's name is the model and the hidden size (``local:qwen2.5-coder-1.5b-1536``),
known from the catalog without loading anything. Changing how vectors are made (pooling,
reference sentences) must change that name, or old and new vectors would be compared.
Every failure is an ``EmbeddingError`` naming the setting. A load that failed is not tried again by
the same embedder (``open_memory`` makes one per run), so a run pays for it once.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chrysalis.errors import ConfigError, EmbeddingError, ModelError, UsageError, WeightsError
from chrysalis.llm.local.catalog import DEFAULT_LOCAL_MODEL, LocalModelInfo, get_local_model
from chrysalis.llm.local.llama_backend import cpu_count, llama_cpp_module
from chrysalis.llm.local.loaded import LoadedCache
from chrysalis.llm.local.weights import load_weights_path

__all__ = ["N_CTX", "REFERENCE", "LocalEmbedder", "loaded_embedders", "unload_embedders"]

N_CTX = 512
"""Tokens per text (and per batch of texts): a memory is at most 2,000 characters, mostly under 512 tokens."""
REFERENCE = (
    "The weather was cold and rainy all week.",
    "She bought fresh bread and cheese at the market.",
    "Run the unit tests before you push a commit.",
    "The meeting moved to Thursday afternoon.",
    "This function returns the sum of two numbers.",
    "The river flows slowly through the old town.",
    "Install the package with pip and restart the shell.",
    "He plays the guitar in a small band.",
    "The server writes its errors to a log file.",
    "Our train was twenty minutes late.",
    "Use a dictionary to count how often each word occurs.",
    "The museum opens at nine in the morning.",
)
"""Unrelated sentences whose mean vector is the direction every text shares, subtracted from each vector."""


@dataclass
class _Loaded:
    """One embedding context, shared by every embedder of the same weights."""

    llama: Any
    lock: threading.Lock
    """A ``Llama`` is not thread-safe: one embedding at a time."""
    center: list[float]
    """The mean of the normalised vectors of ``REFERENCE``."""


_LOADED: LoadedCache[Path, _Loaded] = LoadedCache()


def loaded_embedders() -> list[Path]:
    """The weights files loaded for embeddings in this process (diagnostics and tests)."""
    return _LOADED.keys()


def unload_embedders() -> None:
    """Free every embedding context now (also done at exit, as for the chat models)."""
    _LOADED.unload()


class LocalEmbedder:
    """Mean-pooled, centred, L2-normalised hidden states of an embedded model."""

    def __init__(self, info: LocalModelInfo, home: Path, *, setting: str = "", n_threads: int | None = None) -> None:
        """Embed with ``info``'s weights (from ``home``'s model cache); nothing is loaded until ``embed``.

        Args:
            info: The catalog model; its ``embedding_size`` names the vector space.
            home: ``$CHRYSALIS_HOME``, where the weights cache is.
            setting: How errors name the setting, e.g. ``embeddings = 'local' (env CHRYSALIS_EMBEDDINGS)``.
            n_threads: llama.cpp threads; every CPU this process may use by default.

        Raises:
            ValueError: ``info`` has no ``embedding_size``.
        """
        if info.embedding_size <= 0:
            raise ValueError(f"local:{info.name} has no embedding_size in the catalog, so its vectors have no space")
        self._info = info
        self._home = home
        self._setting = setting or f"embeddings = 'local:{info.name}'"
        self._n_threads = n_threads
        self._failed: str | None = None

    @classmethod
    def for_setting(cls, spec: str, home: Path, source: str) -> LocalEmbedder:
        """The embedder of ``embeddings = "local"`` or ``"local:NAME"`` (``source``: where it was set).

        Raises:
            ConfigError: ``NAME`` is not in the catalog; the message lists the models that are.
        """
        setting = f"embeddings = {spec!r} ({source})"
        name = spec.partition(":")[2] or DEFAULT_LOCAL_MODEL
        try:
            info = get_local_model(name)
        except UsageError as exc:
            raise ConfigError(f"{setting}: {exc}") from exc
        return cls(info, home, setting=setting)

    @property
    def name(self) -> str:
        """The vector space: ``local:MODEL-SIZE``, e.g. ``local:qwen2.5-coder-1.5b-1536``."""
        return f"local:{self._info.name}-{self._info.embedding_size}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, loading the model on first use.

        Raises:
            EmbeddingError: llama-cpp-python is missing, the weights are not fetched or fail their
                checksum, or llama.cpp failed; the message names the setting and the fix.
        """
        if not texts:
            return []
        loaded = self._load()
        with loaded.lock:
            try:
                pooled = loaded.llama.embed(list(texts), normalize=False, truncate=True)
            except Exception as exc:  # llama.cpp reports failures as ValueError, RuntimeError or worse
                raise EmbeddingError(f"{self._setting}: llama.cpp failed while embedding ({exc}).") from exc
        return [_unit(_minus(_unit(vector), loaded.center)) for vector in pooled]

    def _load(self) -> _Loaded:
        if self._failed is not None:
            raise EmbeddingError(self._failed)
        try:
            return _shared(self._info, self._home, self._n_threads)
        except (UsageError, WeightsError, ModelError) as exc:
            self._failed = f"{self._setting} cannot be used: {exc} Or set embeddings to 'lexical' (needs no model)."
            raise EmbeddingError(self._failed) from exc


def _shared(info: LocalModelInfo, home: Path, n_threads: int | None) -> _Loaded:
    """The process's embedding context for ``info``, loaded on first use."""
    llama_cpp = llama_cpp_module()  # first: installing the runtime comes before fetching weights
    path = load_weights_path(info, home)
    return _LOADED.get(path.resolve(), lambda: _load_llama(llama_cpp, path, info, n_threads or cpu_count()))


def _load_llama(llama_cpp: Any, path: Path, info: LocalModelInfo, n_threads: int) -> _Loaded:
    """A quiet embedding context whose batch holds a whole text (mean pooling is per batch)."""
    try:
        llama = llama_cpp.Llama(
            model_path=str(path),
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
            n_ctx=N_CTX,
            n_batch=N_CTX,
            n_ubatch=N_CTX,
            n_threads=n_threads,
            verbose=False,
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelError(f"llama.cpp could not load {path} for embeddings: {exc}.") from exc
    try:
        if llama.n_embd() != info.embedding_size:
            raise ModelError(
                f"{path} gives {llama.n_embd()}-long embeddings, but the catalog says local:{info.name} gives "
                f"{info.embedding_size}; fetch its weights again (`chrysalis models fetch local:{info.name}`)."
            )
        references = [_unit(vector) for vector in llama.embed(list(REFERENCE), normalize=False, truncate=True)]
    except ModelError:
        llama.close()
        raise
    except Exception as exc:
        llama.close()
        raise ModelError(f"llama.cpp failed while embedding with {path}: {exc}.") from exc
    center = [sum(column) / len(references) for column in zip(*references, strict=True)]
    return _Loaded(llama=llama, lock=threading.Lock(), center=center)


def _unit(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else [float(x) for x in vector]


def _minus(vector: Sequence[float], other: Sequence[float]) -> list[float]:
    return [a - b for a, b in zip(vector, other, strict=True)]
