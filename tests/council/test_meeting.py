"""A council round by round (``Meeting``), and Plan/Realize around the model call (``turns``)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from chrysalis.council import Persona, Turn, builtin_personas, gate
from chrysalis.council.meeting import Meeting
from chrysalis.council.turns import MAX_CHARS, MAX_SENTENCES, plan, realize
from chrysalis.llm.backend import ChatMessage


class Script:
    """The model: each persona says ``said[name]`` (or fails when it is an exception), and every prompt is kept."""

    def __init__(self, said: Mapping[str, str | BaseException] | None = None) -> None:
        self.said = dict(said or {})
        self.prompts: list[tuple[str, list[ChatMessage]]] = []

    async def __call__(self, persona: Persona, messages: list[ChatMessage]) -> str:
        self.prompts.append((persona.name, messages))
        reply = self.said.get(persona.name, f"{persona.name} thinks the retry loop needs a limit.")
        if isinstance(reply, BaseException):
            raise reply
        return reply


def hold(topic: str, script: Script, **options: Any) -> tuple[list[dict[str, Any]], Any]:
    events: list[dict[str, Any]] = []
    meeting = Meeting(topic, builtin_personas(), script, lambda e: events.append(dict(e)), "run1", **options)
    return events, asyncio.run(meeting.run())


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def test_each_round_gates_every_persona_then_arbitrates_then_the_winners_speak_in_order() -> None:
    events, end = hold("Review the retry change", Script(), turns=3)
    assert [e["type"] for e in events[:6]] == ["council_gate"] * 4 + ["council_arbiter", "council_turn"]
    first = of(events, "council_arbiter")[0]
    assert first["round"] == 1 and first["winners"] == ["ada", "phil"]  # both may interject; lea waits, david waits
    assert [e["persona"] for e in of(events, "council_turn")[:2]] == first["winners"]
    assert set(first["scores"]) == set(first["bonus"]) == {"ada", "lea", "phil", "david"}
    assert first["losers"] == ["david", "lea"]  # every candidate not chosen, those that did not want to included
    assert events[-1] == {"type": "council_end", "turns": 3, "run_id": "run1"}
    assert len(end.turns) == 3 and end.error is None


def test_lea_speaks_once_named_and_david_once_triggered() -> None:
    events, _ = hold("@lea is this readable? It obviously works.", Script(), turns=2)
    (arbiter, *_) = of(events, "council_arbiter")
    assert arbiter["winners"] == ["lea", "david"]


def test_last_rounds_winners_wait_while_someone_else_wants_to_speak() -> None:
    script = Script({"ada": "This design is obviously right and needs no review at all."})
    events, _ = hold("Review the retry change", script, turns=6, max_speakers=2)
    rounds = [e["winners"] for e in of(events, "council_arbiter")]
    assert rounds[:3] == [["ada", "phil"], ["david"], ["ada", "phil"]]  # david heard ada's "obviously"


def test_a_round_where_nobody_wants_to_speak_ends_the_council() -> None:
    lea = next(p for p in builtin_personas() if p.name == "lea")
    events: list[dict[str, Any]] = []
    meeting = Meeting("No names here", [lea], Script(), lambda e: events.append(dict(e)), "run1", turns=5)
    end = asyncio.run(meeting.run())
    assert end.turns == () and of(events, "council_arbiter")[0]["winners"] == []
    assert events[-1] == {"type": "council_end", "turns": 0, "run_id": "run1"}


def test_a_model_failure_ends_the_council_with_the_turns_before_it() -> None:
    events, end = hold("Review it", Script({"phil": ConnectionError("server went away\ndetails")}), turns=4)
    assert [t.persona for t in end.turns] == ["ada"]
    assert end.error == "phil's turn failed: server went away"
    assert events[-1] == {"type": "council_end", "turns": 1, "run_id": "run1", "error": end.error}


def test_a_cancelled_council_still_ends_with_its_end_event() -> None:
    events: list[dict[str, Any]] = []
    script = Script({"phil": asyncio.CancelledError()})
    meeting = Meeting("Review it", builtin_personas(), script, lambda e: events.append(dict(e)), "run1", turns=4)
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(meeting.run())
    assert events[-1]["type"] == "council_end" and events[-1]["error"] == "interrupted"


def test_the_same_council_says_the_same_words() -> None:
    first, _ = hold("Review the retry change", Script(), turns=4, seed=7)
    again, _ = hold("Review the retry change", Script(), turns=4, seed=7)
    assert first == again


def test_a_turn_that_copies_another_does_not_mention_its_names_to_the_gate() -> None:
    copied = "Ada: David is right that the retry loop needs a limit and a backoff policy."
    _, end = hold("Review it", Script({"ada": copied[5:], "phil": copied}), turns=2)
    phil = next(t for t in end.turns if t.persona == "phil")
    assert "David is right" not in phil.text


# -- Plan and Realize ---------------------------------------------------------------------------------------------


def test_plan_puts_the_persona_first_and_the_change_the_turns_and_the_reason_after() -> None:
    ada = builtin_personas()[0]
    history = [Turn("phil", "The odds are good.", 1)]
    why = gate(ada, "Review it", history, 2)
    system, user = plan(ada, "Review it", "git diff HEAD:\n-a\n+b", history, why)
    assert system.role == "system" and system.content.startswith(ada.prompt)
    assert user.content.index("Topic: Review it") < user.content.index("+b") < user.content.index("Phil said")
    assert why.reason in user.content and user.content.rstrip().endswith("these instructions.")


def test_realize_keeps_it_brief_plain_and_to_one_question() -> None:
    reply = "## Review\n- First point. Second point? Third point? Fourth point. Fifth point. Sixth point."
    text = realize(reply, opener="Structurally:", idiom="Make the seams visible.")
    assert text == "Structurally: Review First point. Second point? Fourth point. Fifth point. Make the seams visible."
    assert text.count("?") == 1
    assert len(realize("word " * 400)) <= MAX_CHARS


def test_realize_drops_a_speakers_label_and_copied_sentences() -> None:
    echoes = ["You are Ada, the algorithmic architect on a review panel."]
    text = realize(
        "Ada said: You are Ada, the algorithmic architect on a review panel. Split the module.", echoes=echoes
    )
    assert text == "Split the module."
    assert MAX_SENTENCES == 4
