"""``ScriptedChatBackend``: a ``ChatBackend`` that replays a list of replies and records what it was asked.

For testing the text tool protocol (``llm/text_protocol.py``) and the repair engine without a model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chrysalis.llm.backend import ChatMessage, Completion

__all__ = ["ScriptedChatBackend"]


class ScriptedChatBackend:
    """A ``ChatBackend`` that returns ``replies`` in order and records every call's messages."""

    def __init__(self, replies: Sequence[str], *, name: str = "scripted", supports_json_schema: bool = False) -> None:
        """Script the replies; running out of them is an error that names the call."""
        self.replies = list(replies)
        self.calls: list[list[ChatMessage]] = []
        """The messages of each ``complete`` call, in order."""
        self.schemas: list[dict[str, Any] | None] = []
        """The JSON schema passed to each call."""
        self._name = name
        self._json_schema = supports_json_schema

    @property
    def name(self) -> str:
        """The fake model's name."""
        return self._name

    @property
    def supports_json_schema(self) -> bool:
        """Whether callers should pass a schema (recorded in ``schemas``, never enforced)."""
        return self._json_schema

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
        """Return the next scripted reply, streaming it to ``on_text`` in two pieces."""
        self.calls.append(list(messages))
        self.schemas.append(json_schema)
        if len(self.calls) > len(self.replies):
            raise AssertionError(f"ScriptedChatBackend ran out of replies at call {len(self.calls)}")
        text = self.replies[len(self.calls) - 1]
        if on_text is not None:
            half = len(text) // 2
            for piece in (text[:half], text[half:]):
                if piece:
                    on_text(piece)
        prompt_chars = sum(len(m.content) for m in messages)
        return Completion(text=text, input_tokens=max(1, prompt_chars // 4), output_tokens=max(1, len(text) // 4))
