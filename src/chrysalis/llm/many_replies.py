"""Several replies to one request in one call: OpenAI's ``n``, where the server takes it.

A voted step needs more replies to the same request. Asked one by one, each costs a round trip
and, on a server without a prompt cache, the whole prompt again. OpenAI's chat completions take
``n`` (several choices, one prompt); so do vLLM and other OpenAI-compatible servers. pydantic-ai
reads only the first choice, so the request goes through our client (``openai_lean.py``), which
keeps the raw completion, and the other choices become replies here. The usage is the first
reply's (the server counts every choice in it); the others carry none, so nothing is counted twice.

A server that ignores ``n`` answers one choice: that one is used, and the caller draws the rest
one at a time. A server that refuses it (an HTTP 4xx other than auth and rate limits) is not asked
again for the life of the model object. Any other model (the embedded one, Anthropic, a test
double) is never asked: ``draw_many`` returns nothing and the caller draws one at a time.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model, ModelRequestParameters
    from pydantic_ai.settings import ModelSettings

__all__ = ["draw_many", "takes_n"]

_NOT_REFUSALS = (401, 403, 408, 429)
"""4xx statuses that say nothing about ``n``: auth, a timeout, a rate limit."""
_REFUSED_ATTRIBUTE = "_chrysalis_refuses_n"


async def draw_many(
    model: Model,
    messages: list[ModelMessage],
    model_settings: ModelSettings | None,
    params: ModelRequestParameters,
    count: int,
) -> list[ModelResponse]:
    """Up to ``count`` replies to one request in one call (``n``); ``[]`` when ``model`` cannot be asked so."""
    from pydantic_ai.exceptions import ModelHTTPError
    from pydantic_ai.usage import RequestUsage

    from chrysalis.llm.openai_lean import keeping_completions

    inner = _innermost(model)
    if count < 2 or not takes_n(model):
        return []
    settings: dict[str, Any] = dict(model_settings or {})
    settings["extra_body"] = {**dict(settings.get("extra_body") or {}), "n": count}
    with keeping_completions() as kept:
        try:
            first = await model.request(messages, settings, params)  # type: ignore[arg-type]
        except ModelHTTPError as exc:
            if 400 <= exc.status_code < 500 and exc.status_code not in _NOT_REFUSALS:
                setattr(inner, _REFUSED_ATTRIBUTE, True)
                return []
            raise
    if not kept or len(kept[-1].choices) < 2:
        return [first]
    completion = kept[-1]
    process = inner._process_response  # type: ignore[attr-defined]  # pydantic-ai's own parsing of a choice
    others = [process(completion.model_copy(update={"choices": [choice]})) for choice in completion.choices[1:]]
    return [first, *(dataclasses.replace(reply, usage=RequestUsage()) for reply in others)]


def takes_n(model: Model) -> bool:
    """Whether ``model`` is an OpenAI-wire chat model on our client that has not refused ``n``."""
    openai_models, lean = sys.modules.get("pydantic_ai.models.openai"), sys.modules.get("chrysalis.llm.openai_lean")
    if openai_models is None or lean is None:  # no OpenAI-wire model was built: nothing to import to find that out
        return False
    inner = _innermost(model)
    return (
        isinstance(inner, openai_models.OpenAIChatModel)
        and isinstance(inner.client, lean.LeanAsyncOpenAI)
        and not getattr(inner, _REFUSED_ATTRIBUTE, False)
    )


def _innermost(model: Model) -> Model:
    from pydantic_ai.models.wrapper import WrapperModel

    while isinstance(model, WrapperModel):
        model = model.wrapped
    return model
