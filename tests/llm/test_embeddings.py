"""Embedders for memory: the endpoint one against a loopback server, the embedded model's with a fake llama.

The real model's embeddings are checked in ``tests/llm/local/test_embeddings_e2e.py``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import socket
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from chrysalis.config import Settings, load_settings
from chrysalis.errors import ConfigError, EmbeddingError
from chrysalis.llm.embedding_endpoint import EndpointEmbedder
from chrysalis.llm.embeddings import LexicalEmbedder, build_embedder, cosine
from chrysalis.llm.local.catalog import LocalModelInfo
from chrysalis.llm.local.llama_embedder import N_CTX, REFERENCE, LocalEmbedder, loaded_embedders, unload_embedders
from chrysalis.llm.local.weights import weights_path
from chrysalis.llm.openai_compat import RetryPolicy
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE
from tests.helpers import EmbeddingServer, make_info

TEXTS = ["Tests run with make test.", "The database is PostgreSQL 16.", "Deploys need a tag.", "Use ruff.", "Lint it."]
FAST = RetryPolicy(tries=2, base_delay=0.0)
SETTING = "embeddings = 'fake' (test)"


def endpoint(server: EmbeddingServer, **options: Any) -> EndpointEmbedder:
    return EndpointEmbedder(
        "fake-embed", server.base_url, label="openai-compatible:fake-embed", setting=SETTING, retry=FAST, **options
    )


def settings_for(workspace: Path, embeddings: str, **env: str) -> Settings:
    home = os.environ["CHRYSALIS_HOME"]
    return load_settings(
        {"workspace": workspace}, environ={"CHRYSALIS_HOME": home, "CHRYSALIS_EMBEDDINGS": embeddings, **env}
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- The endpoint embedder -----------------------------------------------------------------------------


def test_texts_go_in_batches_as_openai_embeddings_requests_and_come_back_in_order() -> None:
    with EmbeddingServer() as server:
        embedder = endpoint(server, api_key="sk-test", batch_size=2)
        vectors = embedder.embed(TEXTS)
        assert embedder.name == "openai-compatible:fake-embed-64"
    assert vectors == LexicalEmbedder(64).embed(TEXTS)  # the server lists them in reverse; JSON keeps floats exact
    assert [request.body["input"] for request in server.requests] == [TEXTS[0:2], TEXTS[2:4], TEXTS[4:]]
    for request in server.requests:
        assert request.path == "/v1/embeddings"
        assert request.body["model"] == "fake-embed" and request.body["encoding_format"] == "float"
        assert request.headers["authorization"] == "Bearer sk-test"
        assert request.headers["content-type"] == "application/json"


def test_the_space_names_the_model_and_length_and_asking_first_costs_one_short_request() -> None:
    with EmbeddingServer(dim=32) as server:
        embedder = endpoint(server)
        assert embedder.name == "openai-compatible:fake-embed-32"
        assert embedder.name == "openai-compatible:fake-embed-32"
        assert embedder.embed([]) == []
    assert [request.body["input"] for request in server.requests] == [["dimension"]]
    assert "authorization" not in server.requests[0].headers  # no key, no header


def answer(status: int, payload: Any) -> Any:
    return lambda body: (status, payload)


@pytest.mark.parametrize(
    ("respond", "requests", "needles"),
    [
        (answer(401, {"error": {"message": "Incorrect API key"}}), 1, ["HTTP 401", "Incorrect API key", "refused"]),
        (answer(404, {"error": "no such model"}), 1, ["HTTP 404", "'fake-embed'", "/v1/embeddings was not found"]),
        (answer(503, {"error": "overloaded"}), 2, ["HTTP 503 (after 2 tries)", "try again later"]),
        (answer(200, b"<html>oops</html>"), 1, ["without data[].embedding", "oops"]),
        (answer(200, {"data": [{"index": 0, "embedding": [0.1, 0.2]}]}), 1, ["1 vectors of lengths [2] for 2 texts"]),
        (answer(200, {"data": [{"embedding": [1.0]}, {"embedding": [1.0, 2.0]}]}), 1, ["lengths [1, 2]"]),
        (answer(200, {"data": [{"embedding": []}, {"embedding": []}]}), 1, ["lengths [0]"]),
    ],
)
def test_a_failing_endpoint_is_an_error_that_names_the_setting_and_what_to_check(
    respond: Any, requests: int, needles: list[str]
) -> None:
    with EmbeddingServer(respond) as server:
        embedder = endpoint(server)
        with pytest.raises(EmbeddingError) as caught:
            embedder.embed(["one", "two"])
        assert len(server.requests) == requests
        with pytest.raises(EmbeddingError, match="The embedding endpoint of embeddings = 'fake'"):
            embedder.embed(["three"])  # failed once: fails at once, sending nothing
        assert len(server.requests) == requests
    message = str(caught.value)
    assert message.startswith(f"The embedding endpoint of {SETTING} failed: ")
    for needle in needles:
        assert needle in message


def test_an_unreachable_endpoint_is_retried_then_named() -> None:
    embedder = EndpointEmbedder("m", f"http://127.0.0.1:{closed_port()}/v1", setting=SETTING, retry=FAST)
    with pytest.raises(EmbeddingError, match=r"could not reach http://127\.0\.0\.1:\d+/v1/embeddings after 2 tries"):
        embedder.embed(["x"])


def test_a_missing_key_fails_before_anything_is_sent_and_says_which_variable(workspace: Path) -> None:
    embedder = build_embedder(settings_for(workspace, "openai:text-embedding-3-small"), environ={})
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["x"])  # a request would have hit the no-network guard and said so
    message = str(caught.value)
    assert "embeddings = 'openai:text-embedding-3-small' (env CHRYSALIS_EMBEDDINGS) needs an API key" in message
    assert "OPENAI_API_KEY" in message and "'local'" in message and "'lexical'" in message


def test_names_resolve_as_for_model_with_the_providers_key(workspace: Path) -> None:
    with EmbeddingServer() as server:
        on_url = settings_for(workspace, "openai:text-embedding-3-small", CHRYSALIS_BASE_URL=server.base_url)
        first = build_embedder(on_url, environ={"OPENAI_API_KEY": "sk-from-env"})
        first.embed(["x"])
        bare = build_embedder(settings_for(workspace, "nomic-embed-text", CHRYSALIS_BASE_URL=server.base_url))
        bare.embed(["y"])
        ollama = build_embedder(
            settings_for(workspace, "ollama:nomic-embed-text"), environ={"OLLAMA_BASE_URL": server.base_url}
        )
        ollama.embed(["z"])
    assert first.name == "openai-compatible:text-embedding-3-small-64"
    assert bare.name == "openai-compatible:nomic-embed-text-64" and ollama.name == "ollama:nomic-embed-text-64"
    auth = [(request.body["model"], request.headers.get("authorization")) for request in server.requests]
    assert auth == [
        ("text-embedding-3-small", "Bearer sk-from-env"),
        ("nomic-embed-text", "Bearer none"),
        ("nomic-embed-text", "Bearer ollama"),
    ]


def test_the_setting_picks_the_embedder_and_loads_nothing(workspace: Path) -> None:
    assert isinstance(build_embedder(load_settings({"workspace": workspace})), LexicalEmbedder)
    local = build_embedder(settings_for(workspace, "local"))
    small = build_embedder(settings_for(workspace, "local:qwen2.5-coder-0.5b"))
    assert (local.name, small.name) == ("local:qwen2.5-coder-1.5b-1536", "local:qwen2.5-coder-0.5b-896")
    assert loaded_embedders() == []
    with pytest.raises(ConfigError) as caught:
        build_embedder(settings_for(workspace, "local:gpt-5"))
    message = str(caught.value)
    assert "embeddings = 'local:gpt-5' (env CHRYSALIS_EMBEDDINGS)" in message
    assert "local:qwen2.5-coder-1.5b, local:qwen2.5-coder-0.5b" in message


def test_a_failing_endpoint_never_loses_a_memory(stores: Stores) -> None:
    memory = stores.memory.with_embedder(
        EndpointEmbedder("m", f"http://127.0.0.1:{closed_port()}/v1", setting=SETTING, retry=FAST)
    )
    kept = memory.keep("Logs are in /var/log/app.", GLOBAL_SCOPE)
    assert memory.get(kept.id) is not None
    assert "found by its words only" in kept.note and "could not reach" in kept.note and "reindex" in kept.note
    found = memory.recall("where are the logs", [GLOBAL_SCOPE])
    assert [hit.memory.id for hit in found.hits] == [kept.id]
    assert found.ranking == "fts" and SETTING in found.note


def test_endpoint_vectors_rank_memories_and_stay_in_their_space(stores: Stores) -> None:
    lexical = stores.memory.with_embedder(LexicalEmbedder())
    old = lexical.remember("The database is PostgreSQL 16.", GLOBAL_SCOPE)
    with EmbeddingServer() as server:
        memory = stores.memory.with_embedder(endpoint(server))
        found = memory.recall("postgress", [GLOBAL_SCOPE])  # its vector is lexical-512's: only words can find it
        assert found.ranking == "hybrid" and found.hits == () and memory.without_vectors() == 1
        assert memory.reindex() == 1
        found = memory.recall("postgress", [GLOBAL_SCOPE])
    assert [hit.memory.id for hit in found.hits] == [old] and memory.without_vectors() == 0
    assert stores.db.read("SELECT space FROM memory_vectors")[0]["space"] == "openai-compatible:fake-embed-64"


# -- The embedded model's embedder, with a fake llama -----------------------------------------------------

SHARED = 6.0
"""A fourth component every fake vector has, as a chat model's hidden states all share a direction."""


class FakeLlama:
    """Stands in for ``llama_cpp.Llama``: counts of "test", "data" and "deploy", plus ``SHARED``; records its calls."""

    made: ClassVar[list[FakeLlama]] = []
    size = 4

    def __init__(self, model_path: str, **options: Any) -> None:
        self.model_path = model_path
        self.options = options
        self.calls: list[list[str]] = []
        self.closed = False
        FakeLlama.made.append(self)

    def n_embd(self) -> int:
        return self.size

    def embed(self, texts: Sequence[str], normalize: bool, truncate: bool) -> list[list[float]]:
        assert (normalize, truncate) == (False, True)
        self.calls.append(list(texts))
        if any("explode" in text for text in texts):
            raise RuntimeError("llama_decode returned -1")
        return [[*(float(text.lower().count(word)) for word in ("test", "data", "deploy")), SHARED] for text in texts]

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    module = types.ModuleType("llama_cpp")
    module.__dict__.update(Llama=FakeLlama, LLAMA_POOLING_TYPE_MEAN=1)
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    FakeLlama.made = []
    yield
    unload_embedders()


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Stores]:
    with Stores.open(tmp_path / "home") as opened:
        yield opened


@pytest.fixture
def info(chrysalis_home: Path) -> LocalModelInfo:
    data = b"GGUF fake weights for embeddings"
    made = dataclasses.replace(make_info(data, parts=1, name="fake-embed"), embedding_size=4)
    path = weights_path(made, chrysalis_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return made


@pytest.mark.usefixtures("fake_llama")
def test_the_model_loads_on_first_use_once_for_every_embedder_and_frees_at_unload(
    info: LocalModelInfo, chrysalis_home: Path
) -> None:
    first = LocalEmbedder(info, chrysalis_home)
    assert first.name == "local:fake-embed-4" and FakeLlama.made == []  # naming the space loads nothing
    first.embed(["run the tests"])
    LocalEmbedder(info, chrysalis_home).embed(["the data", "deploy it"])
    (llama,) = FakeLlama.made
    assert llama.model_path == str(weights_path(info, chrysalis_home))
    assert llama.options | {"n_threads": 0} == {
        "embedding": True,
        "pooling_type": 1,
        "n_ctx": N_CTX,
        "n_batch": N_CTX,
        "n_ubatch": N_CTX,
        "n_threads": 0,
        "verbose": False,
    }
    assert llama.calls == [list(REFERENCE), ["run the tests"], ["the data", "deploy it"]]
    assert loaded_embedders() == [weights_path(info, chrysalis_home).resolve()]
    unload_embedders()
    assert llama.closed and loaded_embedders() == []


@pytest.mark.usefixtures("fake_llama")
def test_vectors_are_unit_length_with_the_shared_direction_taken_out(
    info: LocalModelInfo, chrysalis_home: Path
) -> None:
    tests, more_tests, data = LocalEmbedder(info, chrysalis_home).embed(["test", "test test", "data"])
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0) for v in (tests, more_tests, data))
    assert cosine([1.0, 0.0, 0.0, SHARED], [0.0, 1.0, 0.0, SHARED]) > 0.9  # before: unrelated, yet alike
    assert cosine(tests, more_tests) > 0.9 and cosine(tests, data) < 0.2


def test_an_embedded_model_that_cannot_be_used_fails_as_an_embedding_error_once(
    monkeypatch: pytest.MonkeyPatch, info: LocalModelInfo, chrysalis_home: Path
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    embedder = LocalEmbedder(info, chrysalis_home, setting="embeddings = 'local' (test)")
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed(["x"])
    message = str(caught.value)
    assert message.startswith("embeddings = 'local' (test) cannot be used: The embedded model needs llama-cpp-python")
    assert "pip install 'chrysalis-forge[local]'" in message and "set embeddings to 'lexical'" in message
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))  # now importable (but no Llama)
    with pytest.raises(EmbeddingError, match="needs llama-cpp-python"):
        embedder.embed(["x"])  # the same error: this embedder (one run's) does not try to load again


@pytest.mark.usefixtures("fake_llama")
def test_missing_weights_name_the_fetch_command(info: LocalModelInfo, chrysalis_home: Path) -> None:
    weights_path(info, chrysalis_home).unlink()
    with pytest.raises(EmbeddingError, match=r"chrysalis models fetch local:fake-embed"):
        LocalEmbedder(info, chrysalis_home).embed(["x"])
    assert FakeLlama.made == []


@pytest.mark.usefixtures("fake_llama")
def test_weights_of_another_size_are_refused_and_freed(
    info: LocalModelInfo, chrysalis_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakeLlama, "size", 8)
    with pytest.raises(EmbeddingError, match=r"8-long embeddings, but the catalog says local:fake-embed gives 4"):
        LocalEmbedder(info, chrysalis_home).embed(["x"])
    assert FakeLlama.made[0].closed and loaded_embedders() == []


@pytest.mark.usefixtures("fake_llama")
def test_a_failing_decode_is_an_embedding_error(info: LocalModelInfo, chrysalis_home: Path) -> None:
    embedder = LocalEmbedder(info, chrysalis_home, setting="embeddings = 'local' (test)")
    with pytest.raises(EmbeddingError, match=r"^embeddings = 'local' \(test\): llama\.cpp failed while embedding"):
        embedder.embed(["explode"])
    assert embedder.embed(["test"])  # the model stays loaded and usable


@pytest.mark.usefixtures("fake_llama")
def test_the_embedded_models_vectors_rank_memories_in_their_own_space(
    info: LocalModelInfo, chrysalis_home: Path, stores: Stores
) -> None:
    memory = stores.memory.with_embedder(LocalEmbedder(info, chrysalis_home))
    tests = memory.remember("How to test: make test.", GLOBAL_SCOPE)
    memory.remember("The data lives in S3.", GLOBAL_SCOPE)
    found = memory.recall("pytest", [GLOBAL_SCOPE])  # no word in common: only the vectors can find it
    assert found.ranking == "hybrid" and [hit.memory.id for hit in found.hits] == [tests]
    assert found.hits[0].bm25 is None and found.hits[0].similarity is not None
    assert {row["space"] for row in stores.db.read("SELECT space FROM memory_vectors")} == {"local:fake-embed-4"}
