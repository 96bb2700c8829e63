"""Compaction: keep a long conversation inside the model's window without losing what it established.

Past ``compact_at`` of the model's context window (estimated at four characters a token, the same
rough measure for every provider), the oldest turns are summarised by the model itself into a
summary, the last ``KEEP_TURNS`` turns are kept word for word, and tool results longer than
``RESULT_CHARS`` in the kept turns are cut with a marker that says how much went. The summary is
not a message: the session puts it in the system prompt ("Summary of the earlier conversation"),
and keeps it, versioned, as the session context's ``compacted_summary``. An earlier summary is
folded into the next one, so facts from the first turn survive any number of compactions.

A turn begins with a request that holds the user's task and runs to the next such request, so a
tool call and its result are never split (a provider refuses a result without its call).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model

__all__ = [
    "KEEP_TURNS",
    "RESULT_CHARS",
    "SUMMARY_INSTRUCTIONS",
    "Compaction",
    "Summariser",
    "compact",
    "context_window",
    "estimate_tokens",
    "transcript",
    "turns",
]

KEEP_TURNS = 2
"""The most recent turns kept word for word."""
RESULT_CHARS = 2_000
"""A kept tool result longer than this is cut to its head and tail, with a marker."""
USER_WORDS = "What the user said in the turns summarised, word for word:"
USER_WORDS_CHARS = 3_000
"""The most characters of the user's own words kept beside a summary (the first and the newest)."""
USER_PROMPT_CHARS = 500
"""One user prompt kept word for word is cut to this many characters."""
TRANSCRIPT_RESULT_CHARS = 600
"""How much of each tool result the summariser reads (it needs the gist, not the whole file)."""
SUMMARY_INSTRUCTIONS = (
    "You condense a coding agent's conversation so the agent can go on without it. Write a short summary in "
    "plain sentences: the user's tasks and requests, facts learned (names, numbers, paths, errors, results of "
    "commands), decisions made, changes made to files, and what is still open. Keep every concrete detail a later "
    "question could need; drop chatter. Do not invent anything."
)


@dataclass(frozen=True)
class Compaction:
    """What one compaction did: the history that stays, the new summary, and the sizes before and after."""

    history: list[ModelMessage]
    summary: str
    tokens_before: int
    tokens_after: int
    turns_summarised: int


@dataclass
class SummaryCost:
    """What the summarising calls took."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_ms: float = 0.0


class Summariser:
    """The ``summarise`` of ``compact``: the run's model, no tools, ``SUMMARY_INSTRUCTIONS``; counts what it used."""

    def __init__(self, model: Model, model_name: str, prices: Mapping[str, tuple[float, float]]) -> None:
        self.model, self.model_name, self.prices = model, model_name, prices
        self.used = SummaryCost()

    async def __call__(self, text: str) -> str:
        """The model's summary of ``text``."""
        from pydantic_ai import Agent

        from chrysalis.llm.pricing import cost_usd

        started = time.perf_counter()
        result = await Agent(self.model, instructions=SUMMARY_INSTRUCTIONS).run(text)
        usage = result.usage
        tokens_in, tokens_out = usage.input_tokens or 0, usage.output_tokens or 0
        self.used.input_tokens += tokens_in
        self.used.output_tokens += tokens_out
        self.used.cost_usd += cost_usd(self.model_name, tokens_in, tokens_out, self.prices)
        self.used.duration_ms += round((time.perf_counter() - started) * 1000, 1)
        return str(result.output)


def context_window(model: str, home: Path) -> int:
    """``model``'s context window in tokens (the catalogue's card; an embedded model's, what it is loaded with)."""
    from chrysalis.llm.local.catalog import DEFAULT_N_CTX
    from chrysalis.llm.model_catalog import Catalog

    window = Catalog.load(home).card(model).context
    return min(window, DEFAULT_N_CTX) if model.startswith("local:") else window


def estimate_tokens(messages: Sequence[ModelMessage], summary: str = "") -> int:
    """About how many tokens ``messages`` (and a summary beside them) take: four characters a token."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return (len(ModelMessagesTypeAdapter.dump_json(list(messages))) + len(summary)) // 4


def turns(messages: Sequence[ModelMessage]) -> list[list[ModelMessage]]:
    """``messages`` split where a request carries a user's prompt (anything before the first goes with it)."""
    found: list[list[ModelMessage]] = []
    for message in messages:
        starts = message.kind == "request" and any(part.part_kind == "user-prompt" for part in message.parts)
        if starts or not found:
            found.append([])
        found[-1].append(message)
    return found


async def compact(
    messages: Sequence[ModelMessage],
    summarise: Callable[[str], Awaitable[str]],
    *,
    previous_summary: str = "",
    keep_turns: int = KEEP_TURNS,
    result_chars: int = RESULT_CHARS,
) -> Compaction | None:
    """Summarise all but the last ``keep_turns`` turns with ``summarise`` (None: nothing older to fold in).

    ``summarise`` gets the transcript to condense (the earlier summary first) and returns the summary.
    What the user wrote in the folded turns is kept word for word beside the model's summary (up to
    ``USER_WORDS_CHARS``): a small model's summary of twenty file reads can drop the one line a user
    said in turn 1, and the user's words are the facts and instructions a run must not lose (tool
    results can be read again).
    """
    split = turns(messages)
    cut = max(0, len(split) - keep_turns)
    older, recent = split[:cut], split[cut:]
    if not older:
        return None
    previous, said = _split_summary(previous_summary)
    text = transcript([m for turn in older for m in turn])
    if previous:
        text = f"Summary of what came before:\n{previous}\n\nThen:\n{text}"
    summary = (await summarise(text)).strip()
    words = _capped([*said, *(prompt for turn in older for prompt in _user_prompts(turn))], USER_WORDS_CHARS)
    if words:
        summary += f"\n\n{USER_WORDS}\n" + "\n".join(f"- {line}" for line in words)
    kept = cut_results([m for turn in recent for m in turn], result_chars)
    return Compaction(
        kept, summary, estimate_tokens(messages, previous_summary), estimate_tokens(kept, summary), len(older)
    )


def _user_prompts(turn: Sequence[ModelMessage]) -> list[str]:
    """The user's prompts in ``turn``, each on one line and at most ``USER_PROMPT_CHARS``."""
    found = [
        " ".join(_text(getattr(part, "content", "")).split())
        for message in turn
        for part in message.parts
        if part.part_kind == "user-prompt"
    ]
    return [text if len(text) <= USER_PROMPT_CHARS else text[: USER_PROMPT_CHARS - 1] + "…" for text in found]


def _split_summary(summary: str) -> tuple[str, list[str]]:
    """A stored summary as (the model's part, the user's words kept beside it)."""
    head, marker, tail = summary.partition(f"\n\n{USER_WORDS}\n")
    if not marker:
        return summary, []
    return head, [line[2:] for line in tail.splitlines() if line.startswith("- ")]


def _capped(lines: list[str], limit: int) -> list[str]:
    """``lines`` within ``limit`` characters: the first ones and the newest, with a marker for those between."""
    if sum(len(line) for line in lines) <= limit:
        return lines
    first: list[str] = []
    last: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) > limit // 2:
            break
        first.append(line)
        used += len(line)
    for line in reversed(lines[len(first) :]):
        if used + len(line) > limit:
            break
        last.insert(0, line)
        used += len(line)
    return [*first, f"[... {len(lines) - len(first) - len(last)} more left out ...]", *last]


def cut_results(messages: Sequence[ModelMessage], limit: int) -> list[ModelMessage]:
    """``messages`` with each tool result longer than ``limit`` characters cut to its head and tail, marked."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    out: list[ModelMessage] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            parts = [
                replace(part, content=_cut(part.content, limit)) if isinstance(part, ToolReturnPart) else part
                for part in message.parts
            ]
            message = replace(message, parts=parts)
        out.append(message)
    return out


def _cut(content: Any, limit: int) -> Any:
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
    if len(text) <= limit:
        return content
    head, tail = text[: limit * 2 // 3], text[-(limit // 3) :]
    return f"{head}\n[... {len(text) - len(head) - len(tail)} characters cut by compaction ...]\n{tail}"


def transcript(messages: Sequence[ModelMessage]) -> str:
    """The conversation as plain lines for the summariser: tasks, answers, tool calls and (the start of) results."""
    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            kind = part.part_kind
            if kind == "user-prompt":
                lines.append(f"User: {_text(getattr(part, 'content', ''))}")
            elif kind == "text":
                lines.append(f"Assistant: {_text(getattr(part, 'content', ''))}")
            elif kind == "tool-call":
                lines.append(f"Assistant called {getattr(part, 'tool_name', '?')}({_text(getattr(part, 'args', ''))})")
            elif kind in ("tool-return", "retry-prompt"):
                result = _text(getattr(part, "content", ""))
                if len(result) > TRANSCRIPT_RESULT_CHARS:
                    result = result[:TRANSCRIPT_RESULT_CHARS] + " [...]"
                lines.append(f"Result of {getattr(part, 'tool_name', None) or 'the call'}: {result}")
    return "\n".join(lines)


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
