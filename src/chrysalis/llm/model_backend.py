"""Any pydantic-ai model as a ``ChatBackend``: repair and voting sample through every provider.

The fast path (``llm/sampling.py``) goes to llama.cpp in process or to an OpenAI-compatible server
in one plain HTTP request. OpenAI, Anthropic and OpenRouter have clients of their own (their
authentication, their message shapes, their retries), which pydantic-ai already drives for the
agent; this backend sends a sample through the same ``Model`` with one direct request, so
``chrysalis fix`` works on any model a run works on. Replies are plain text: the prompt asks for
the JSON shape, and a reply that is not it is counted as ``not_json`` like any unusable sample.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chrysalis.llm.backend import ChatMessage, Completion

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

__all__ = ["ModelBackend"]


class ModelBackend:
    """Completions from a pydantic-ai ``Model`` (one direct request each); no schema constraint."""

    def __init__(self, model: Model) -> None:
        self._model = model

    @property
    def name(self) -> str:
        """The model's name, as pydantic-ai reports it."""
        return self._model.model_name

    @property
    def supports_json_schema(self) -> bool:
        """No: the providers differ in how (and whether) they constrain output; the prompt asks instead."""
        return False

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
        """One request with these sampling settings (``seed`` where the provider takes one)."""
        from pydantic_ai.direct import model_request
        from pydantic_ai.messages import TextPart
        from pydantic_ai.settings import ModelSettings

        settings = ModelSettings(max_tokens=max_tokens, temperature=temperature)
        if seed is not None:
            settings["seed"] = seed
        response = await model_request(self._model, _history(messages), model_settings=settings)
        text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
        if on_text is not None and text:
            on_text(text)
        finish = "length" if response.finish_reason == "length" else "stop"
        return Completion(text, response.usage.input_tokens, response.usage.output_tokens, finish_reason=finish)


def _history(messages: list[ChatMessage]) -> list[ModelMessage]:
    """Our chat messages as pydantic-ai's: system and user parts in requests, assistant text in responses."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart

    history: list[ModelMessage] = []
    for message in messages:
        if message.role == "assistant":
            history.append(ModelResponse(parts=[TextPart(message.content)]))
            continue
        part = SystemPromptPart(message.content) if message.role == "system" else UserPromptPart(message.content)
        if history and isinstance(history[-1], ModelRequest):
            history[-1].parts = [*history[-1].parts, part]
        else:
            history.append(ModelRequest(parts=[part]))
    return history
