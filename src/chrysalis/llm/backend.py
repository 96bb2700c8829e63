"""The seam between the text tool protocol and a raw chat model (embedded or plain HTTP).

A ``ChatBackend`` takes chat messages and returns text. It knows nothing of tools: the text tool
protocol (``chrysalis.llm.text_protocol``) renders the tool catalog into the prompt, asks the
backend for text (constrained by a JSON schema when the backend can do that) and parses the tool
call out of it. One protocol, two implementations: llama.cpp in process, and any
OpenAI-compatible server over plain HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = ["ChatBackend", "ChatMessage", "Completion"]


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat, in the shape every chat template understands."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class Completion:
    """The text a backend produced and what it cost in tokens."""

    text: str
    input_tokens: int
    output_tokens: int
    finish_reason: str = "stop"
    cached_tokens: int = 0
    """Prompt tokens not evaluated again: the embedded model's KV cache already held them."""


@dataclass(frozen=True)
class AnswerOdds:
    """Each offered answer's log-probability as a whole reply, in the order offered, and what the prompt cost."""

    logprobs: list[float]
    prompt_tokens: int
    cached_tokens: int
    """Prompt tokens the KV cache already held (the context shared with the previous question)."""


class ChatBackend(Protocol):
    """A chat model that turns messages into text."""

    @property
    def name(self) -> str:
        """The model's name, as shown to users and used for pricing (e.g. ``qwen2.5-coder-1.5b``)."""
        ...

    @property
    def supports_json_schema(self) -> bool:
        """True when ``complete`` can force its output to match a JSON schema."""
        ...

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
        """Produce the next assistant message; ``on_text`` receives streamed pieces as they come.

        ``seed`` fixes the sampling at a temperature above 0 (voters draw with different seeds).
        """
        ...
