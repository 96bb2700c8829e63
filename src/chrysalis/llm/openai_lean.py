"""The ``openai`` client, minus its per-request walk over the whole conversation and every tool schema.

Before every chat request the SDK "transforms" its parameters against their TypedDict types
(renaming aliased keys, formatting dates), recursively, message by message and through each
tool's JSON schema. pydantic-ai has already built messages and tools as plain JSON-ready dicts,
so for them the walk changes nothing, yet it is the largest cost of an agent step: profiled on a
50-step run against a loopback server, it was over half of the framework's time, growing with the
history (``bench/overhead.py``).

``LeanAsyncOpenAI`` is the stock client whose chat-completions ``create`` hands ``messages`` and
``tools`` over through the SDK's own ``extra_body`` (merged into the JSON body as is) and lets
every other parameter go through the normal transform. HTTP, retries, streaming, response parsing and errors
stay the SDK's. Imported only when an OpenAI-wire model is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property
from typing import Any

from openai import AsyncOpenAI
from openai.resources.chat import AsyncChat
from openai.resources.chat.completions import AsyncCompletions

__all__ = ["LeanAsyncOpenAI", "keeping_completions"]


_VERBATIM = ("tools",)
"""Parameters besides ``messages`` that pydantic-ai builds as JSON already: sent as they are."""
_KEPT: ContextVar[list[Any] | None] = ContextVar("chrysalis_kept_completions", default=None)


@contextmanager
def keeping_completions() -> Iterator[list[Any]]:
    """The raw completions of the (non-streamed) requests made inside: pydantic-ai reads only the first choice.

    Replies drawn together (``n``, ``llm/many_replies.py``) need the others.
    """
    kept: list[Any] = []
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)


class _LeanCompletions(AsyncCompletions):
    async def create(  # type: ignore[override]  # same parameters, passed through
        self, *, messages: Iterable[Any], extra_body: dict[str, Any] | None = None, **params: Any
    ) -> Any:
        """``AsyncCompletions.create``, with ``messages`` and ``tools`` sent verbatim instead of re-walked."""
        body = {**(extra_body or {}), "messages": list(messages)}
        for name in _VERBATIM:
            value = params.get(name)
            if isinstance(value, list | tuple):
                body[name] = list(params.pop(name))
        completion = await super().create(messages=[], extra_body=body, **params)
        kept = _KEPT.get()
        if kept is not None and not params.get("stream"):
            kept.append(completion)
        return completion


class _LeanChat(AsyncChat):
    @cached_property
    def completions(self) -> AsyncCompletions:
        """Chat completions whose messages skip the SDK's parameter transform."""
        return _LeanCompletions(self._client)


class LeanAsyncOpenAI(AsyncOpenAI):
    """``AsyncOpenAI`` whose ``chat.completions.create`` does not re-transform the conversation each call."""

    @cached_property
    def chat(self) -> AsyncChat:
        """The chat resource, with lean completions."""
        return _LeanChat(self)
