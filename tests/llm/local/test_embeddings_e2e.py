"""End-to-end: ``embeddings = "local"`` on the real 0.5B model, from the real weights cache (see conftest.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from chrysalis.llm.embeddings import cosine
from chrysalis.llm.local.catalog import get_local_model
from chrysalis.llm.local.llama_embedder import LocalEmbedder, unload_embedders
from chrysalis.stores.memory import MIN_SIMILARITY
from tests.helpers import E2E_MODEL

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("real_model_cache")]

QUERY = "How do I run the test suite before committing?"
RELATED = "Execute the unit tests with pytest prior to every commit."
UNRELATED = "My grandmother grows tomatoes and basil in her garden."


def test_the_embedded_model_puts_a_related_sentence_nearer_than_an_unrelated_one(chrysalis_home: Path) -> None:
    embedder = LocalEmbedder(get_local_model(E2E_MODEL), chrysalis_home)
    try:
        query, related, unrelated = embedder.embed([QUERY, RELATED, UNRELATED])
    finally:
        unload_embedders()
    near, far, apart = cosine(query, related), cosine(query, unrelated), cosine(related, unrelated)
    # Shown with `pytest -s`: how far apart the model puts them, against the store's threshold for a match.
    print(
        f"\ncosine: query~related {near:.3f}, query~unrelated {far:.3f}, related~unrelated {apart:.3f} "
        f"(a match by meaning needs {MIN_SIMILARITY})"
    )
    assert embedder.name == "local:qwen2.5-coder-0.5b-896"
    assert all(len(v) == 896 and math.isclose(math.sqrt(sum(x * x for x in v)), 1.0) for v in (query, related))
    assert near > far and near > apart
