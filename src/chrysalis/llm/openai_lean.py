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

from collections.abc import Iterable
from functools import cached_property
from typing import Any

from openai import AsyncOpenAI
from openai.resources.chat import AsyncChat
from openai.resources.chat.completions import AsyncCompletions

__all__ = ["LeanAsyncOpenAI"]


_VERBATIM = ("tools",)
"""Parameters besides ``messages`` that pydantic-ai builds as JSON already: sent as they are."""


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
        return await super().create(messages=[], extra_body=body, **params)


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
