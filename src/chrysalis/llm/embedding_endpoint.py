"""Embeddings from an endpoint: ``POST {base_url}/embeddings`` in OpenAI's wire format.

``embeddings = "openai:text-embedding-3-small"`` (or ``ollama:nomic-embed-text``, or a model name
on ``base_url``'s server) makes memory ask an endpoint for its vectors. The names resolve as
``--model`` does (``chrysalis.llm.names``, ``providers.openai_endpoint``): the provider's URL and
key variable (``OPENAI_API_KEY``, ``OPENROUTER_API_KEY``; ollama and other local servers need none).

Each request is OpenAI's ``{"model": NAME, "input": [TEXT, ...], "encoding_format": "float"}``
with the key as a bearer token, at most ``batch_size`` texts at a time; the answer's
``data[].embedding`` are put back in input order by their ``index``.

Every failure is an ``EmbeddingError`` whose message names the setting, where it was set, and what
to check: a missing key (then nothing is sent), an HTTP error (429 and 5xx are retried with the
``RetryPolicy`` every provider call follows), a server that cannot be reached, an answer of the
wrong shape. Memory catches it and keeps the note, found by its words. After one failure the
embedder fails at once: a dead endpoint costs a run one round of retries, not one per memory.

The vector space (``name``) is the model and the vectors' length (``openai:text-embedding-3-small-1536``);
the length comes with the first answer, so asking for ``name`` before any ``embed`` sends one short text.
Synchronous on purpose: the memory store is, and the agent runs tools in worker threads.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chrysalis.errors import EmbeddingError, MissingCredentialsError
from chrysalis.llm.names import ModelName
from chrysalis.llm.openai_compat import RetryPolicy
from chrysalis.llm.providers import KEY_VARS, OPENAI_URL, openai_endpoint
from chrysalis.tls import tls_context

if TYPE_CHECKING:
    import httpx

__all__ = ["BATCH_SIZE", "TIMEOUT", "EndpointEmbedder"]

BATCH_SIZE = 64
"""Texts per request (OpenAI takes up to 2,048; small batches keep each request short)."""
TIMEOUT = 15.0
"""Seconds one attempt may take: a batch of notes embeds in well under a second on a working endpoint."""
_PROBE = "dimension"
"""The text sent to learn the vectors' length when ``name`` is asked for before any ``embed``."""
_HINTS = {
    400: "the server rejected the request; is {model!r} an embedding model?",
    401: "the API key was refused; check {key}",
    403: "the API key may not use {model!r}; check {key}",
    404: "the model {model!r} or the endpoint {url} was not found; check the setting (and base_url)",
    429: "the server is rate limiting; try again later",
}


class EndpointEmbedder:
    """Vectors from an OpenAI-compatible ``/embeddings`` endpoint, in batches, with retries."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        label: str | None = None,
        setting: str | None = None,
        batch_size: int = BATCH_SIZE,
        timeout: float = TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> None:
        """Point the embedder at a server.

        Args:
            model: The model's name on the server.
            base_url: The API root, e.g. ``https://api.openai.com/v1`` (``/embeddings`` is added).
            api_key: Sent as a bearer token when given.
            label: The model as the user named it (``openai:text-embedding-3-small``); starts ``name``.
            setting: How errors name the setting, e.g. ``embeddings = '...' (env CHRYSALIS_EMBEDDINGS)``.
            batch_size: Most texts per request.
            timeout: Seconds one attempt may take.
            retry: The backoff rule; ``RetryPolicy()`` when not given.
        """
        self._model = model
        self._url = base_url.rstrip("/") + "/embeddings"
        self._headers = {"Content-Type": "application/json"} | (
            {"Authorization": f"Bearer {api_key}"} if api_key else {}
        )
        self._label = label or model
        self._setting = setting or f"embeddings = {self._label!r}"
        self._key_var = "the API key"
        self._batch = max(1, batch_size)
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._size: int | None = None
        self._failed: str | None = None

    @classmethod
    def for_setting(
        cls, spec: str, *, base_url: str | None, source: str, environ: Mapping[str, str] | None = None
    ) -> EndpointEmbedder:
        """The embedder of ``embeddings = spec`` (set in ``source``); a missing key makes every ``embed`` fail.

        Raises:
            UsageError: ``spec`` is no model name (``load_settings`` has already refused such values).
        """
        name = ModelName.parse(spec, base_url=base_url)
        setting = f"embeddings = {spec!r} ({source})"
        env = os.environ if environ is None else environ
        try:
            url, key = openai_endpoint(name, base_url, env)
        except MissingCredentialsError as exc:
            embedder = cls(name.name, base_url or OPENAI_URL, label=str(name), setting=setting)
            embedder._failed = (
                f"{setting} needs an API key: set the {exc.env_var} environment variable, "
                "or choose embeddings = 'local' (the embedded model) or 'lexical'."
            )
            return embedder
        embedder = cls(name.name, url or OPENAI_URL, api_key=key, label=str(name), setting=setting)
        embedder._key_var = KEY_VARS.get(
            name.provider, "OLLAMA_API_KEY" if name.provider == "ollama" else "OPENAI_API_KEY"
        )
        return embedder

    @property
    def name(self) -> str:
        """The vector space: the model and the vectors' length, e.g. ``openai:text-embedding-3-small-1536``.

        Raises:
            EmbeddingError: the length is not known yet and the endpoint fails to tell it.
        """
        size = self._size or len(self.embed([_PROBE])[0])
        return f"{self._label}-{size}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, ``batch_size`` texts per request.

        Raises:
            EmbeddingError: no key, the endpoint failed (after retries) or answered in a wrong shape,
                or it failed before in this embedder's life.
        """
        if self._failed is not None:
            raise EmbeddingError(self._failed)
        if not texts:
            return []
        import httpx

        try:
            with httpx.Client(timeout=self._timeout, verify=tls_context()) as client:
                return [
                    vector
                    for start in range(0, len(texts), self._batch)
                    for vector in self._request(client, list(texts[start : start + self._batch]))
                ]
        except EmbeddingError as exc:
            self._failed = str(exc)
            raise

    def _request(self, client: httpx.Client, batch: list[str]) -> list[list[float]]:
        """POST one batch with retries; the vectors in input order."""
        import httpx

        payload = json.dumps({"model": self._model, "input": batch, "encoding_format": "float"}).encode()
        for attempt in range(self._retry.tries):
            last = attempt + 1 >= self._retry.tries
            try:
                response = client.post(self._url, content=payload, headers=self._headers)
            except httpx.TransportError as exc:  # timeouts, refused or dropped connections
                if last:
                    raise self._error(
                        f"could not reach {self._url} after {self._retry.tries} tries ({type(exc).__name__}: {exc}); "
                        "check that the server is running and the URL is right"
                    ) from exc
            else:
                if response.status_code < 400:
                    return self._vectors(response, len(batch))
                if last or not self._retry.should_retry_status(response.status_code):
                    raise self._status_error(response, attempt + 1)
            time.sleep(self._retry.delay(attempt))
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _vectors(self, response: httpx.Response, count: int) -> list[list[float]]:
        """``data[].embedding`` in input order, checked: one per text, numbers, all of one length."""
        try:
            rows: list[Any] = response.json()["data"]
            ordered = sorted(enumerate(rows), key=lambda pair: int(pair[1].get("index", pair[0])))
            vectors = [[float(x) for x in row["embedding"]] for _, row in ordered]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise self._error(f"{self._url} answered without data[].embedding: {response.text[:200]!r}") from exc
        sizes = {len(vector) for vector in vectors}
        if len(vectors) != count or len(sizes) != 1 or 0 in sizes:
            raise self._error(
                f"{self._url} answered {len(vectors)} vectors of lengths {sorted(sizes)} for {count} texts"
            )
        (size,) = sizes
        if self._size is not None and size != self._size:
            raise self._error(f"{self._url} changed the vectors' length from {self._size} to {size}")
        if not all(math.isfinite(x) for vector in vectors for x in vector):
            raise self._error(f"{self._url} answered vectors with NaN or infinite numbers")
        self._size = size
        return vectors

    def _status_error(self, response: httpx.Response, tries: int) -> EmbeddingError:
        status = response.status_code
        hint = _HINTS.get(status, "the server failed; try again later" if status >= 500 else "check the setting")
        hint = hint.format(model=self._model, url=self._url, key=self._key_var)
        detail = response.text[:300].strip() or "no details"
        retried = f" (after {tries} tries)" if tries > 1 else ""
        return self._error(f"{self._url} answered HTTP {status}{retried}: {detail}. Hint: {hint}")

    def _error(self, what: str) -> EmbeddingError:
        return EmbeddingError(f"The embedding endpoint of {self._setting} failed: {what}.")
