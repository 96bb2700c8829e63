"""Embedders: text to vectors, for "which of these does this sentence mean?".

``Embedder`` is the one protocol. ``LexicalEmbedder`` needs nothing installed and no model: it
hashes words (lightly stemmed) and their character trigrams into a fixed-size vector, so "quick"
lands near "quickly" and "money is no object" near itself and far from "cheap". It is the default;
a neural embedder can be passed wherever an ``Embedder`` is taken.

``build_embedder(settings)`` makes the one the ``embeddings`` setting names, for memory:

============================  ==============================================================  =============
``embeddings``                embedder                                                        vector space
============================  ==============================================================  =============
``lexical`` (default)         ``LexicalEmbedder``: nothing to load                            ``lexical-512``
``local``, ``local:NAME``     ``llm/local/llama_embedder.py``: the embedded model, in process ``local:NAME-SIZE``
``PROVIDER:NAME``, ``NAME``   ``llm/embedding_endpoint.py``: an OpenAI-compatible endpoint    ``PROVIDER:NAME-SIZE``
============================  ==============================================================  =============

Each one's ``name`` is its vector space (model and length): vectors of different names are never compared.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the priority and selection code import this module: keep it light
    from chrysalis.config import Settings
    from chrysalis.stores.memory import MemoryEmbedder

__all__ = ["Embedder", "LexicalEmbedder", "build_embedder", "cosine"]


class Embedder(Protocol):
    """Turns texts into vectors of one fixed length; similar meanings give a high cosine."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text."""
        ...


_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no meaning for "which of these phrases is this?"; without them "the weather in
# Paris" would match "the best" on "the". Negations ("no", "not") are kept: they carry meaning.
_STOP_WORDS = frozenset(
    "a an the and or but of in on at to for with by from is are be it this that these those i we you me my our "
    "your please some any as so very just".split()
)
_SUFFIXES = ("ingly", "edly", "ing", "est", "ed", "ly", "er", "es", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


class LexicalEmbedder:
    """Hashed bag of stemmed words (weight 1) and character trigrams (weight 0.3), L2-normalised."""

    def __init__(self, dim: int = 512) -> None:
        """Vectors have ``dim`` entries; collisions are rare for the short texts this is for."""
        self.dim = dim
        self.name = f"lexical-{dim}"
        """Names the vector space (a stored vector is compared only with vectors of the same name)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalised vector per text (all zeros for a text with no words)."""
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self.dim
        for word in _WORD.findall(text.lower()):
            if word in _STOP_WORDS:
                continue
            stem = _stem(word)
            vector[zlib.crc32(b"w:" + stem.encode()) % self.dim] += 1.0
            padded = f"#{stem}#"
            for i in range(len(padded) - 2):
                vector[zlib.crc32(b"t:" + padded[i : i + 3].encode()) % self.dim] += 0.3
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector


def build_embedder(settings: Settings, *, environ: Mapping[str, str] | None = None) -> MemoryEmbedder:
    """The embedder ``settings.embeddings`` names; nothing is loaded or sent until it embeds.

    Everything that can only fail later (no key, no runtime, no weights, an endpoint that is down)
    fails as ``EmbeddingError`` when it embeds, which memory survives by ranking by words.

    Args:
        settings: ``embeddings``, ``base_url`` (for a bare model name), ``home`` (the model cache) are read.
        environ: Where API keys are looked up; ``os.environ`` by default.

    Raises:
        ConfigError: ``local:NAME`` names no model of the catalog.
    """
    spec = settings.embeddings
    source = settings.sources.get("embeddings", "default")
    if spec == "lexical":
        return LexicalEmbedder()
    if spec == "local" or spec.startswith("local:"):
        from chrysalis.llm.local.llama_embedder import LocalEmbedder

        return LocalEmbedder.for_setting(spec, settings.home, source)
    from chrysalis.llm.embedding_endpoint import EndpointEmbedder

    return EndpointEmbedder.for_setting(spec, base_url=settings.base_url, source=source, environ=environ)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is all zeros."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
