"""The gate: each initiative mode, mentions and triggers in any case, cooldown in rounds, budget, repair signals."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from chrysalis.council import Gate, GateResult, Persona, Turn, builtin_personas, gate

PANEL = {p.name: p for p in builtin_personas()}
ADA, LEA, PHIL, DAVID = PANEL["ada"], PANEL["lea"], PANEL["phil"], PANEL["david"]


def ask(
    persona: Persona, topic: str, *turns: Turn, round: int | None = None, turns_left: int | None = None
) -> GateResult:
    """The gate for ``persona`` after ``turns``, in ``round`` (the gate's default: the round after the last turn)."""
    return gate(persona, topic, list(turns), round, turns_left)


def test_can_interject_wants_to_speak_while_turns_remain() -> None:
    result = ask(ADA, "Add a cache.", turns_left=3)
    assert (result.should_speak, result.rule, result.confidence) == (True, "interject", 0.5)
    assert result.reason == "ada may interject while turns remain."
    spent = ask(ADA, "Add a cache.", turns_left=0)
    assert (spent.should_speak, spent.rule, spent.confidence) == (False, "budget", 0.0)
    assert "No turns are left" in spent.reason


@pytest.mark.parametrize("said", ["Lea, what do you think?", "ask @lea", "LEA?", "over to @Lea.", "(lea)"])
def test_wait_for_mention_wants_to_once_named_in_any_case(said: str) -> None:
    assert ask(LEA, said).rule == "mention"
    assert ask(LEA, "Add docs.", Turn("ada", said, 0)).should_speak
    result = ask(LEA, "Add docs.", Turn("ada", said, 0))
    assert (result.confidence, result.reason) == (0.85, "lea was mentioned by name.")  # 0.8 + one trigger, "docs"


@pytest.mark.parametrize("said", ["Leah agrees.", "a lean design", "ask @lea-team", "the docs are unclear"])
def test_wait_for_mention_stays_quiet_without_its_name_even_on_a_trigger_or_repair(said: str) -> None:
    result = ask(LEA, "Improve the README.", Turn("ada", said, 0))
    assert (result.should_speak, result.rule, result.confidence) == (False, "waiting", 0.0)
    assert "lea waits to be mentioned by name" in result.reason


@pytest.mark.parametrize("said", ["It will ALWAYS work.", "I am Sure.", "it's 100% safe", "That is obviously fine"])
def test_proactive_when_triggered_wakes_on_a_trigger_in_any_case(said: str) -> None:
    assert ask(DAVID, "Add a cache.").rule == "waiting"
    result = ask(DAVID, "Add a cache.", Turn("ada", said, 0))
    assert (result.should_speak, result.rule) == (True, "trigger")
    assert result.confidence == 0.6 and len(result.heard) == 1


def test_proactive_when_triggered_wakes_on_its_name_and_on_a_trigger_in_the_topic() -> None:
    assert ask(DAVID, "David, check this.").rule == "mention"
    assert ask(DAVID, "This can never fail.").heard == ("never",)
    assert ask(DAVID, "a non-trivial, surely-safe change").rule == "waiting"  # whole words only


def test_triggers_are_the_personas_own_and_multiword_ones_match_across_spaces() -> None:
    critic = Persona(
        name="critic", priority=0.5, mode="proactive_when_triggered", prompt="p", triggers=("Base Rate", "HOLE")
    )
    result = ask(critic, "What is the base\n  rate here? I see a hole.")
    assert result.heard == ("base rate", "hole") and result.confidence == 0.65


def test_confidence_rises_with_triggers_up_to_three_and_with_a_repair_signal_up_to_1() -> None:
    one = ask(DAVID, "It is certain.")
    three = ask(DAVID, "It is certain, always, never wrong.")
    five = ask(DAVID, "It is certain, always, never, definitely, obviously right.")
    assert (one.confidence, three.confidence, five.confidence) == (0.6, 0.85, 0.7)
    assert three.repair == ("wrong",) and "a repair signal ('wrong')" in three.reason
    named = ask(DAVID, "David: certain, always, never, I disagree.")
    assert named.confidence == 1.0  # 0.8 + 0.15 + 0.15, capped


def test_a_repair_signal_raises_an_interjecting_personas_confidence() -> None:
    calm = ask(PHIL, "Plan the release.", Turn("ada", "Looks fine.", 0))
    upset = ask(PHIL, "Plan the release.", Turn("ada", "I think we made a MISTAKE.", 0))
    assert (calm.confidence, upset.confidence) == (0.5, 0.65) and upset.repair == ("mistake",)


def test_only_what_others_said_since_the_personas_last_turn_counts() -> None:
    history = [Turn("ada", "@lea please look", 0), Turn("lea", "Done, I am sure.", 1), Turn("phil", "ok", 2)]
    assert ask(LEA, "t", *history).rule == "waiting"  # the mention was answered in round 1
    assert ask(DAVID, "t", Turn("david", "This is never safe, David.", 0), round=5).rule == "waiting"  # its own words
    assert ask(LEA, "Lea, read this.", Turn("lea", "Read.", 0), round=3).rule == "waiting"  # the topic was answered


def test_the_gate_reads_back_a_window_of_turns_and_the_topic_is_its_first_entry() -> None:
    filler = [Turn("ada" if i % 2 else "phil", f"point {i}", i) for i in range(12)]
    assert ask(LEA, "Lea, start.", *filler[:11]).rule == "mention"
    assert ask(LEA, "Lea, start.", *filler).rule == "waiting"  # 12 turns pushed the topic out
    assert Gate(window=20)(LEA, topic="Lea, start.", history=filler, round=12).rule == "mention"


def test_cooldown_counts_rounds() -> None:
    spoke = [Turn("ada", "A thought.", 3)]
    assert ask(ADA, "t", *spoke, round=3).rule == "cooldown"  # never twice in a round
    result = ask(ADA, "t", *spoke, round=4)
    assert (result.should_speak, result.rule) == (False, "cooldown")
    assert result.reason == "ada spoke in round 3 and sits out 1 round after speaking."
    assert ask(ADA, "t", *spoke, round=5).should_speak
    two = Gate(cooldown=2)
    assert [two(ADA, topic="t", history=spoke, round=r).should_speak for r in (4, 5, 6)] == [False, False, True]
    none = Gate(cooldown=0)
    assert [none(ADA, topic="t", history=spoke, round=r).should_speak for r in (3, 4)] == [False, True]


def test_a_cooling_persona_is_cooling_even_when_named() -> None:
    history = [Turn("lea", "Here.", 0), Turn("ada", "Lea, again?", 0)]
    assert ask(LEA, "t", *history, round=1).rule == "cooldown"
    assert ask(LEA, "t", *history, round=2).rule == "mention"


def test_the_round_defaults_to_the_one_after_the_last_turn() -> None:
    spoke = [Turn("ada", "A thought.", 3)]
    assert gate(ADA, "t", spoke).rule == "cooldown"  # round 4
    assert gate(ADA, "t").rule == "interject"  # round 0, no history
    assert Gate()(ADA, "t", spoke, 5).rule == "interject"


def test_the_gate_is_a_pure_function_of_its_inputs() -> None:
    history = [Turn("ada", "I am certain this is wrong, @Lea.", 0), Turn("phil", "Odds are low.", 0)]
    first = [gate(p, topic="Ship it?", history=history, round=1) for p in PANEL.values()]
    again = [gate(p, topic="Ship it?", history=list(history), round=1) for p in PANEL.values()]
    assert first == again


def test_candidates_carry_each_personas_priority_and_the_gates_answer() -> None:
    cands = Gate().candidates(PANEL.values(), topic="Is this always right?", history=[], round=0, turns_left=4)
    assert [(c.persona, c.priority, c.confidence, c.should_speak) for c in cands] == [
        ("ada", 0.75, 0.5, True),
        ("lea", 0.65, 0.0, False),
        ("phil", 0.70, 0.5, True),
        ("david", 0.90, 0.6, True),
    ]


@pytest.mark.parametrize(("field", "value"), [("cooldown", -1), ("cooldown", 1.5), ("window", 0), ("window", True)])
def test_bad_gate_settings_are_value_errors(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(Gate(), **{field: value})
