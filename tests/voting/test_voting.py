"""Voting: the rules, the levels, red flags, ties, timeouts, failures, and cancellation."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chrysalis import Vote, VoteError, VotingConfig, vote, vote_async
from chrysalis.voting import red_flags


def scripted(*answers: Any) -> Callable[[int], Any]:
    """A sampler that answers in order (by call, not by index) and records the indices it got."""
    it: Iterator[Any] = iter(answers)
    lock = threading.Lock()

    def sample(i: int) -> Any:
        with lock:
            sample.indices.append(i)  # type: ignore[attr-defined]
            answer = next(it)
        if isinstance(answer, Exception):
            raise answer
        return answer

    sample.indices = []  # type: ignore[attr-defined]
    return sample


@pytest.mark.parametrize(
    ("level", "n", "k"), [("none", 1, 1), ("low", 2, 2), ("medium", 3, 2), ("high", 5, 3), ("critical", 7, 4)]
)
def test_levels_are_seed_001s(level: str, n: int, k: int) -> None:
    config = VotingConfig.level(level)
    assert (config.n, config.k, config.rule, config.max_samples) == (n, k, "ahead", 10 * n)


def test_ahead_by_k_stops_when_the_leader_is_k_ahead() -> None:
    result = vote(scripted("a", "b", "a", "a", "b"), VotingConfig(n=1, k=2))
    assert (result.winner, result.counts, result.samples, result.consensus) == ("a", {"a": 3, "b": 1}, 4, True)


def test_first_to_k_stops_at_k_votes() -> None:
    result = vote(scripted("a", "b", "b", "a", "a"), VotingConfig(n=1, k=3, rule="first"))
    assert (result.winner, result.samples) == ("a", 5)


def test_a_tie_keeps_drawing() -> None:
    result = vote(scripted("a", "b", "b"), VotingConfig(n=2, k=1))
    assert result.winner == "b" and result.counts == {"a": 1, "b": 2}


def test_past_max_samples_the_plurality_wins_without_consensus() -> None:
    result = vote(scripted("a", "b", "a", "b", "a"), VotingConfig(n=1, k=3, max_samples=5))
    assert (result.winner, result.consensus, result.samples) == ("a", False, 5)


def test_k_larger_than_max_samples_can_never_reach_consensus() -> None:
    result = vote(scripted(*"aaaa"), VotingConfig(n=2, k=9, max_samples=4))
    assert (result.winner, result.consensus) == ("a", False)


def test_red_flagged_samples_are_redrawn_never_counted_and_counted_as_drawn() -> None:
    flags = red_flags.any_of(red_flags.too_long(8), red_flags.hedging())
    result = vote(scripted("x" * 9, "maybe a", "a", "a"), VotingConfig(n=1, k=2), red_flag=flags)
    assert result.counts == {"a": 2} and result.flagged == {"too_long": 1, "hedging": 1} and result.samples == 4


def test_every_sample_red_flagged_is_a_vote_error_that_says_how_many() -> None:
    with pytest.raises(VoteError, match=r"all 6 were discarded \(too_long: 6\)"):
        vote(scripted(*["long answer"] * 6), VotingConfig(n=2, k=1, max_samples=6), red_flag=red_flags.too_long(3))


def test_a_failing_sampler_is_a_discarded_sample_and_the_last_error_is_the_cause() -> None:
    result = vote(scripted(RuntimeError("boom"), "a"), VotingConfig(n=1, k=1))
    assert result.flagged == {"error": 1} and result.winner == "a"
    with pytest.raises(VoteError) as caught:
        vote(scripted(*[RuntimeError("down")] * 3), VotingConfig(n=1, k=1, max_samples=3))
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_answers_are_normalised_before_counting_and_the_winner_is_a_raw_answer() -> None:
    result = vote(scripted(" A", "a ", "b"), VotingConfig(n=1, k=2), normalize=lambda s: s.strip().lower())
    assert result.counts == {"a": 2} and result.winner == " A"


def test_voters_get_their_index_unless_decorrelation_is_off() -> None:
    sample = scripted(*"abab" * 5)
    vote(sample, VotingConfig(n=3, k=5, max_samples=6))
    assert sorted(sample.indices) == [0, 1, 2, 3, 4, 5]  # type: ignore[attr-defined]
    same = scripted(*"abab")
    vote(same, VotingConfig(n=1, k=9, max_samples=4, decorrelate=False))
    assert same.indices == [0, 0, 0, 0]  # type: ignore[attr-defined]


def test_the_first_n_samples_are_drawn_concurrently() -> None:
    barrier = threading.Barrier(3, timeout=30)  # only passes if three samplers run at once

    def sample(i: int) -> str:
        barrier.wait()
        return "a"

    assert vote(sample, VotingConfig(n=3, k=3)).winner == "a"


def test_a_timeout_returns_the_plurality_so_far() -> None:
    release = threading.Event()

    def sample(i: int) -> str:
        if i == 0:
            return "a"
        release.wait(30)  # the others hang until the test ends
        return "b"

    try:
        result = vote(sample, VotingConfig(n=3, k=3, timeout=0.2))
    finally:
        release.set()
    assert (result.winner, result.consensus) == ("a", False)


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"n": 0}, "n must be at least 1"),
        ({"k": 0}, "k must be at least 1"),
        ({"rule": "most"}, "'ahead' or 'first'"),
        ({"n": 3, "max_samples": 2}, "max_samples .2. must be at least n .3."),
        ({"timeout": 0}, "positive"),
    ],
)
def test_bad_configs_say_what_is_allowed(options: dict[str, Any], needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        VotingConfig(**options)


def test_an_unknown_level_lists_the_levels() -> None:
    with pytest.raises(ValueError, match="none, low, medium, high, critical"):
        VotingConfig.level("extreme")


def test_vote_async_decides_like_vote() -> None:
    answers = iter("abaab")

    async def sample(i: int) -> str:
        await asyncio.sleep(0)
        return next(answers)

    result = asyncio.run(vote_async(sample, VotingConfig(n=2, k=2)))
    assert result.winner == "a" and result.consensus


def test_cancelling_vote_async_cancels_the_samples_in_flight() -> None:
    started, cancelled = asyncio.Event(), []

    async def sample(i: int) -> str:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(i)
            raise
        return "never"

    async def main() -> None:
        task = asyncio.create_task(vote_async(sample, VotingConfig(n=3, k=2)))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert sorted(cancelled) == [0, 1, 2]


def test_vote_async_times_out_with_the_plurality() -> None:
    async def sample(i: int) -> str:
        if i == 0:
            return "a"
        await asyncio.Event().wait()
        return "b"

    result = asyncio.run(vote_async(sample, VotingConfig(n=3, k=2, timeout=0.1)))
    assert (result.winner, result.consensus) == ("a", False)


@pytest.mark.parametrize(
    ("check", "sample", "flag"),
    [
        (red_flags.too_long(10), "x" * 11, "too_long"),
        (red_flags.bad_format(int), "seven", "bad_format"),
        (red_flags.bad_format(lambda s: None), "x", "bad_format"),
        (red_flags.hedging(), "I'm not sure, maybe 3", "hedging"),
        (red_flags.repetition(), "move disk one " * 5, "repetition"),
    ],
)
def test_each_red_flag_fires_on_its_sign(check: red_flags.RedFlag, sample: str, flag: str) -> None:
    assert check(sample) == flag


@pytest.mark.parametrize("clean", ["move = [1, 0, 2]", "The answer is 42.", "a b c d a b c d e f"])
def test_red_flags_leave_clean_answers_alone(clean: str) -> None:
    checks = red_flags.any_of(red_flags.too_long(100), red_flags.hedging(), red_flags.repetition())
    assert checks(clean) is None


@settings(max_examples=150, derandomize=True, database=None)
@given(
    answers=st.lists(st.sampled_from(["a", "b", "c", "FLAG"]), min_size=1, max_size=40),
    n=st.integers(1, 4),
    k=st.integers(1, 4),
    rule=st.sampled_from(["ahead", "first"]),
)
def test_a_vote_is_consistent(answers: list[str], n: int, k: int, rule: str) -> None:
    """The winner has the most votes, counts and flags add up to what was drawn, and never more than allowed."""
    endless = itertools.cycle(answers)
    lock = threading.Lock()

    def sample(i: int) -> str:
        with lock:
            return next(endless)

    config = VotingConfig(n=n, k=k, rule=rule, max_samples=max(n, 12))  # type: ignore[arg-type]
    try:
        result: Vote = vote(sample, config, red_flag=lambda s: "flag" if s == "FLAG" else None)
    except VoteError:
        assert set(answers) == {"FLAG"}
        return
    assert result.counts[result.winner] == max(result.counts.values())
    assert config.max_samples is not None
    assert sum(result.counts.values()) + sum(result.flagged.values()) <= result.samples <= config.max_samples
    if result.consensus:
        ordered = [*sorted(result.counts.values(), reverse=True), 0]
        assert ordered[0] >= k if rule == "first" else ordered[0] - ordered[1] >= k
