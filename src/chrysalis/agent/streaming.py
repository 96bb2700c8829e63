"""Turn pydantic-ai's streamed replies into our events: ``text_delta`` as text arrives, red flags for re-prompts.

Kept apart from the loop because it is glue: it knows pydantic-ai's part and delta classes and
which test models cannot stream, and the loop only says "stream this request" and "this reply came".
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chrysalis.events import Event, RedFlag, TextDelta

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.models import Model

__all__ = ["ReplyStream"]


class ReplyStream:
    """Emits the model's text of one run, streamed when the model can stream, else whole per reply."""

    def __init__(self, model: Model, run_id: str, emit: Callable[[Event], None]) -> None:
        self.streams = _can_stream(model)
        self._run_id = run_id
        self._emit = emit

    async def request(self, node: Any, ctx: Any) -> None:
        """Drive one model-request node, emitting its text as it arrives (a no-op for non-streaming models)."""
        if not self.streams:
            return
        async with node.stream(ctx) as reply:
            async for event in reply:
                self._text(_text_of(event))

    def reply(self, response: ModelResponse) -> None:
        """A whole reply came back: emit its text if it was not streamed, and trace the re-prompts it needed."""
        if not self.streams:
            self._text("".join(part.content for part in response.parts if part.part_kind == "text"))
        details = response.provider_details or {}
        if details.get("corrections"):
            errors = "; ".join(map(str, details.get("errors") or []))
            self._emit(RedFlag(run_id=self._run_id, kind="corrected_reply", detail=errors))

    def _text(self, text: str) -> None:
        if text:
            self._emit(TextDelta(run_id=self._run_id, text=text))


def _can_stream(model: Model) -> bool:
    """Every provider model streams; a test's ``FunctionModel`` only when given a ``stream_function``.

    The module is looked up, not imported: importing it costs a tenth of a second at start-up, and
    if nobody imported it, ``model`` cannot be a ``FunctionModel``.
    """
    function_models = sys.modules.get("pydantic_ai.models.function")
    if function_models is None:
        return True
    wrappers = sys.modules.get("pydantic_ai.models.wrapper")
    while wrappers is not None and isinstance(model, wrappers.WrapperModel):  # the voting wrapper: ask its model
        model = model.wrapped
    return not isinstance(model, function_models.FunctionModel) or model.stream_function is not None


def _text_of(event: Any) -> str:
    """The text a streamed reply event adds (a new text part or a delta to one), else ``""``."""
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return event.part.content
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return event.delta.content_delta
    return ""
