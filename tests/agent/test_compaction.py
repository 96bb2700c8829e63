"""Compaction: older turns summarised by the model into the system prompt, recent turns kept, long results cut."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.capabilities.compaction.summary import SUMMARY_INSTRUCTIONS, cut_results, transcript, turns
from chrysalis.config import load_settings
from chrysalis.errors import ConfigError
from chrysalis.events import Compacted, Event
from chrysalis.stores import Stores
from tests.helpers import session_for


class Talker:
    """Answers each task with ``ok: TASK``; asked for a summary, keeps the transcript's lines that hold a fact."""

    def __init__(self) -> None:
        self.summaries: list[str] = []
        self.systems: list[str] = []
        self.seen: list[list[ModelMessage]] = []

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            if info.instructions == SUMMARY_INSTRUCTIONS:
                (text,) = [str(p.content) for p in messages[-1].parts if isinstance(p, UserPromptPart)]
                self.summaries.append(text)
                facts = [line for line in text.splitlines() if "code" in line]
                return ModelResponse(parts=[TextPart("Facts: " + " | ".join(facts))])
            self.systems.append(info.instructions or "")
            self.seen.append(list(messages))
            task = [str(p.content) for p in messages[-1].parts if isinstance(p, UserPromptPart)][-1]
            return ModelResponse(parts=[TextPart(f"ok: {task}")])

        return FunctionModel(respond)


def test_a_long_conversation_is_compacted_before_a_run_and_the_needle_survives(workspace: Path) -> None:
    talker, events = Talker(), list[Event]()
    session = session_for(workspace, talker.model(), events, compact_at=0.1)
    asyncio.run(session.run("remember: the door code is 4711"))
    for n in range(30):  # enough turns to pass a tenth of the window (estimated at 4 characters a token)
        asyncio.run(session.run(f"note {n}: " + "filler words " * 40))
    compactions = [e for e in events if isinstance(e, Compacted)]
    first = compactions[0]
    assert first.reason == "window" and first.tokens_after < first.tokens_before
    assert "door code is 4711" in talker.summaries[0]
    last_system, last_seen = talker.systems[-1], talker.seen[-1]
    assert "Summary of the earlier conversation (compacted):" in last_system and "4711" in last_system
    assert len(turns(last_seen)) <= 3  # the two kept turns and this run's
    with Stores.open(session.settings.home) as stores:
        context = stores.context.load(f"session:{session.session_id}")
        rows = stores.db.read("SELECT profile, task_type FROM evals WHERE task_type = 'compaction'")
        stored = stores.sessions.messages(session.session_id or "")
    assert "4711" in context.compacted_summary and context.version == len(compactions)
    assert len(rows) == len(compactions) and rows[0]["profile"] == "compaction"
    assert len(stored) == len(session.history)  # the store holds the compacted history, not the whole
    session.close()

    later = session_for(workspace, talker.model(), [])
    later.conversation.continue_latest()
    asyncio.run(later.run("what was the door code?"))
    later.close()
    assert "4711" in talker.systems[-1]  # a resumed session gets its summary back


def test_compact_on_demand_folds_all_but_the_last_two_turns(workspace: Path) -> None:
    talker, events = Talker(), list[Event]()
    session = session_for(workspace, talker.model(), events)
    asyncio.run(session.run("the code word is falcon"))
    assert asyncio.run(session.compact()) is None  # one turn: nothing older than the kept ones
    asyncio.run(session.run("second"))
    asyncio.run(session.run("third"))
    done = asyncio.run(session.compact())
    assert done is not None and done.turns_summarised == 1 and "falcon" in done.summary
    assert [str(p.content) for m in session.history for p in m.parts if isinstance(p, UserPromptPart)] == [
        "second",
        "third",
    ]
    (event,) = [e for e in events if isinstance(e, Compacted)]
    assert event.reason == "asked" and event.summary_chars == len(done.summary)
    session.close()


def test_kept_tool_results_are_cut_with_a_marker_and_calls_keep_their_results() -> None:
    long = "x" * 10_000
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("read it")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": "big.txt"}, tool_call_id="c1")]),
        ModelRequest(parts=[ToolReturnPart("read_file", long, tool_call_id="c1")]),
        ModelResponse(parts=[TextPart("read")]),
        ModelRequest(parts=[UserPromptPart("and now")]),
    ]
    assert [len(turn) for turn in turns(messages)] == [4, 1]  # a call and its result stay in one turn
    cut = cut_results(messages, 2000)
    result, original = cut[2].parts[0], messages[2].parts[0]
    assert isinstance(result, ToolReturnPart) and isinstance(original, ToolReturnPart)
    content = str(result.content)
    assert "characters cut by compaction" in content and len(content) < 2100 and content.startswith("xxx")
    assert result.tool_call_id == "c1" and original.content == long  # the input is not changed
    text = transcript(messages)
    assert "User: read it" in text and 'Assistant called read_file({"path": "big.txt"})' in text
    assert "Result of read_file: xxx" in text and len(text) < 1000


def test_compact_at_is_checked(workspace: Path) -> None:
    with pytest.raises(ConfigError, match=r"between 0\.1 and 0\.95"):
        load_settings({"workspace": workspace, "compact_at": "2"})


def test_the_users_words_are_kept_beside_the_summary_through_later_compactions() -> None:
    from chrysalis.capabilities.compaction.summary import USER_WORDS, compact

    def turn(text: str) -> list[ModelMessage]:
        return [ModelRequest(parts=[UserPromptPart(text)]), ModelResponse(parts=[TextPart("ok")])]

    async def forgetful(_text: str) -> str:
        return "The user read some files."  # a small model's summary that dropped the fact

    history = [*turn("the door code is 4711"), *turn("two"), *turn("three"), *turn("four")]
    first = asyncio.run(compact(history, forgetful))
    assert first is not None and f"{USER_WORDS}\n- the door code is 4711\n- two" in first.summary
    again = asyncio.run(compact([*first.history, *turn("five")], forgetful, previous_summary=first.summary))
    assert again is not None and again.summary.count(USER_WORDS) == 1
    assert again.summary.endswith("- the door code is 4711\n- two\n- three")
