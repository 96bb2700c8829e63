"""Micro-question chains: each question voted, replies outside the answer space redrawn, answers fed forward."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.config import load_settings
from chrysalis.llm.sampling import Sampler
from chrysalis.llm.testing import ScriptedOpenAIServer
from chrysalis.voting import VoteError, VotingConfig
from chrysalis.voting.micro import MicroChain, Question, ask, maker_k, normalise_answer, predicted_samples

PEGS = ("A", "B", "C")


def move_of_disk_one(state: str) -> MicroChain[tuple[str, str]]:
    """Two questions; the second quotes the first's answer, as a Hanoi step does."""
    peg = yield Question("peg_of_disk_1", "Which peg has disk 1 on top?", PEGS, context=state)
    target = yield Question("target_of_disk_1", f"Disk 1 is on peg {peg}. Where does it go?", PEGS, context=state)
    return (peg, target)


def scripted(replies: dict[str, Iterator[str]], seen: list[tuple[str, str, int]]):  # type: ignore[no-untyped-def]
    """An answerer that replies from a script per question name and records what it was asked."""

    async def answer(question: Question, i: int) -> str:
        seen.append((question.name, question.text, i))
        return next(replies[question.name])

    return answer


def test_each_question_is_voted_and_its_answer_feeds_the_next() -> None:
    seen: list[tuple[str, str, int]] = []
    replies = {"peg_of_disk_1": iter(["B", "A", "B", "B"]), "target_of_disk_1": iter(["C", "C"])}
    result = asyncio.run(ask(move_of_disk_one("pegs"), scripted(replies, seen), VotingConfig(n=1, k=2)))
    assert result.value == ("B", "C")
    assert [step.answer for step in result.steps] == ["B", "C"]
    assert result.steps[0].vote.counts == {"B": 3, "A": 1}
    assert seen[-1][1] == "Disk 1 is on peg B. Where does it go?"
    assert [i for _, _, i in seen] == [0, 1, 2, 3, 0, 1]  # voters are numbered afresh for each question
    assert result.samples == 6 and result.flagged == 0


def test_a_reply_outside_the_answer_space_is_red_flagged_and_redrawn() -> None:
    replies = {
        "peg_of_disk_1": iter(['"b"', "Peg B, I think", "D", "b."]),
        "target_of_disk_1": iter(["C", "C"]),
    }
    result = asyncio.run(ask(move_of_disk_one("pegs"), scripted(replies, []), VotingConfig(n=1, k=2)))
    first = result.steps[0]
    assert first.answer == "B"  # quotes, case and a full stop are format, not content
    assert first.vote.flagged == {"too_long": 1, "bad_format": 1}
    assert result.flagged == 2


def test_a_question_whose_every_reply_is_flagged_fails_naming_the_question_and_closes_the_chain() -> None:
    closed: list[bool] = []

    def chain() -> MicroChain[str]:
        try:
            first = yield Question("peg_of_disk_1", "Which peg?", PEGS)
            yield Question("target_of_disk_1", f"From {first}, where to?", PEGS)
            return "unreachable"
        finally:
            closed.append(True)

    replies = {"peg_of_disk_1": iter(["A", "A"]), "target_of_disk_1": iter(["peg D"] * 10)}
    with pytest.raises(VoteError, match=r"micro-question 'target_of_disk_1' \('From A, where to\?'\).*bad_format: 4"):
        asyncio.run(ask(chain(), scripted(replies, []), VotingConfig(n=1, k=2, max_samples=4)))
    assert closed == [True]


def test_answers_are_matched_ignoring_case_quotes_and_a_full_stop() -> None:
    assert normalise_answer(' "yes". ', ("yes", "no")) == "yes"
    assert normalise_answer("Empty", ("1", "2", "empty")) == "empty"
    assert normalise_answer("yes, surely", ("yes", "no")) is None


def test_a_question_must_offer_distinct_answers() -> None:
    with pytest.raises(ValueError, match="offers no answers"):
        Question("q", "?", ())
    with pytest.raises(ValueError, match="same answer twice"):
        Question("q", "?", ("A", "a"))


def test_maker_k_grows_with_the_steps_and_refuses_an_accuracy_voting_cannot_lift() -> None:
    assert maker_k(1023, 0.99) == 3
    assert maker_k(1023, 0.9) == 5
    assert maker_k(1_048_575, 0.9) > maker_k(1023, 0.9)
    assert maker_k(10, 1.0) == 1
    with pytest.raises(ValueError, match="above one half"):
        maker_k(1023, 0.5)
    assert predicted_samples(3, 0.75) == pytest.approx(6.0)


def test_a_model_answers_with_the_context_as_system_message_and_the_answers_offered(workspace: Path) -> None:
    with ScriptedOpenAIServer(["B", "B", "C", "C"], replay_redraws=False) as server:
        sampler = Sampler.for_model("m", load_settings({"workspace": workspace, "base_url": server.base_url}))
        result = asyncio.run(ask(move_of_disk_one("Pegs: A [2], B [1], C []"), sampler.answerer(), VotingConfig(k=2)))
    assert result.value == ("B", "C")
    first = server.requests[0]["messages"]
    assert first[0] == {"role": "system", "content": "Pegs: A [2], B [1], C []"}
    assert first[1]["content"] == "Which peg has disk 1 on top?\nAnswer with exactly one of: A, B, C."
    assert [r["temperature"] for r in server.requests] == [0.0, 0.4, 0.0, 0.4]


def test_voters_are_asked_the_question_in_turn_in_each_of_its_wordings_and_one_wording_can_be_outvoted() -> None:
    """min(3, 10) misread as 10 by one wording: voters asked min(10, 3) too carry the vote."""
    question = Question("smaller", "print(min(3, 10))", ("3", "10"), variants=("print(min(10, 3))",))
    assert question.asked_by(0).text == "print(min(3, 10))" and question.asked_by(3).text == "print(min(10, 3))"
    assert question.asked_by(1).variants == () and Question("q", "t", PEGS).asked_by(5).text == "t"
    seen: list[str] = []

    async def answer(asked: Question, i: int) -> str:
        seen.append(asked.text)
        wrong_on_the_first_wording = i % 4 == 0  # one voter in two on that wording errs
        return "10" if wrong_on_the_first_wording else "3"

    async def decide_it() -> str:
        from chrysalis.voting.micro import decide

        return (await decide(question, answer, VotingConfig(n=1, k=3))).answer

    assert asyncio.run(decide_it()) == "3"
    assert seen[:4] == ["print(min(3, 10))", "print(min(10, 3))", "print(min(3, 10))", "print(min(10, 3))"]
