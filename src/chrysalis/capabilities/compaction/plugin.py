"""The compaction plug-in: compact before a run that would fill the window, and put the summary in the prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chrysalis.capabilities.compaction.summary import Compaction, Summariser, context_window
from chrysalis.capabilities.scope import NoHooks, RunScope, SavedConversation
from chrysalis.config import Settings
from chrysalis.events import Compacted, Event
from chrysalis.plugin import Offer
from chrysalis.stores import Stores
from chrysalis.tools.base import ToolSpec

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["CompactionPlugin", "compact_conversation"]


class CompactionPlugin(NoHooks):
    """Keeps the conversation within ``compact_at`` of the model's window (never a sub-agent's)."""

    name = "compaction"

    async def start(self, run: RunScope) -> None:
        """Compact now when the conversation fills ``compact_at`` of the model's window."""
        conversation = run.conversation
        if conversation is None:
            return
        limit = run.settings.compact_at * context_window(run.model_name, run.settings.home)
        if conversation.tokens() >= limit:
            await compact_conversation(
                conversation, run.model(), run.model_name, run.settings, run.stores, run.emit, run.run_id, "window"
            )

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """What compaction kept of the older turns, first of the prompt's tail (it changes only when compacted)."""
        conversation = run.conversation
        summary = conversation.summary.strip() if conversation is not None else ""
        return Offer(prompt="Summary of the earlier conversation (compacted):\n" + summary if summary else "")


async def compact_conversation(
    conversation: SavedConversation,
    model: Model,
    model_name: str,
    settings: Settings,
    stores: Stores,
    emit: Callable[[Event], None],
    run_id: str,
    reason: str,
) -> Compaction | None:
    """Summarise the older turns with ``model``; keep the recent ones (``summary.compact``).

    The eval store records the summarising call and a ``compaction`` event says what was done.
    None when there is nothing older than the kept turns to summarise.
    """
    summariser = Summariser(model, model_name, settings.prices)
    done = await conversation.compact(summariser)
    if done is None:
        return None
    used = summariser.used
    stores.evals.log(
        run_id=run_id,
        profile="compaction",
        task_type="compaction",
        model=model_name,
        success=True,
        duration_ms=used.duration_ms,
        cost_usd=used.cost_usd,
        input_tokens=used.input_tokens,
        output_tokens=used.output_tokens,
    )
    emit(
        Compacted(
            run_id=run_id,
            turns_summarised=done.turns_summarised,
            reason=reason,
            tokens_before=done.tokens_before,
            tokens_after=done.tokens_after,
            summary_chars=len(done.summary),
        )
    )
    return done
