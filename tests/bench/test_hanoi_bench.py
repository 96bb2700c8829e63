"""bench/hanoi.py: the Hanoi domain is right, MAKER's arithmetic holds, and the loop solves small games."""

from __future__ import annotations

import random
from typing import Any

import pytest

from chrysalis.voting import VotingConfig
from tests.helpers import load_bench_module

hanoi = load_bench_module("hanoi")


@pytest.mark.parametrize("disks", range(1, 9))
def test_the_per_step_rule_solves_the_game_in_the_fewest_moves(disks: int) -> None:
    state, previous = hanoi.start_state(disks), None
    for _ in range(2**disks - 1):
        previous = hanoi.next_move(state, previous, disks)
        state = hanoi.apply(state, previous)
    assert state == ((), (), tuple(range(disks, 0, -1)))


def test_illegal_moves_are_refused() -> None:
    with pytest.raises(ValueError, match="illegal"):
        hanoi.apply(hanoi.start_state(3), (3, 0, 1))  # disk 3 is under disk 1


@pytest.mark.parametrize(
    ("reply", "move"),
    [
        ("move = [1, 0, 2]", (1, 0, 2)),
        ("  move = [12, 2, 1]\n", (12, 2, 1)),
        ("move=[1,0,2]", None),
        ("move = [1, 0, 3]", None),
        ("I think move = [1, 0, 2]", None),
        ("move = [1, 0, 2] because", None),
    ],
)
def test_the_move_format_is_strict(reply: str, move: tuple[int, int, int] | None) -> None:
    assert hanoi.parse_move(reply) == move


def test_red_flags_catch_rambling_and_malformed_replies_only() -> None:
    assert hanoi.HANOI_FLAGS("move = [1, 0, 2]") is None
    assert hanoi.HANOI_FLAGS("move: disk 1 to peg 2") == "bad_format"
    assert hanoi.HANOI_FLAGS("x" * 100) == "too_long"


def test_makers_k_grows_with_the_log_of_the_steps() -> None:
    ks = [hanoi.k_min(2**d - 1, 0.995, 0.95) for d in (5, 10, 20)]
    assert ks == sorted(ks) and ks[0] < ks[-1]
    exact, estimate = hanoi.exact_samples(3, 0.9), hanoi.predicted_samples(3, 0.9)
    assert 0 < exact < estimate < 1.1 * exact  # MAKER's k/(2p-1) is a close upper bound
    assert hanoi.exact_samples(1, 0.7) == pytest.approx(1.0)  # first-to-ahead-by-1: the first sample decides


def test_a_simulated_game_is_solved_with_voting_despite_errors() -> None:
    model = hanoi.SimulatedModel(6, error_rate=0.05, flaggable=0.5, rng=random.Random(3))
    outcome = hanoi.solve(6, model, VotingConfig(n=1, k=3))
    assert outcome.errors == 0 and outcome.flagged > 0 and outcome.samples > outcome.steps


def test_without_voting_the_same_model_makes_errors() -> None:
    model = hanoi.SimulatedModel(8, error_rate=0.05, flaggable=0.0, rng=random.Random(3))
    assert hanoi.solve(8, model, VotingConfig(n=1, k=1)).errors > 0


def test_the_benchmark_runs_and_writes_its_rows(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "hanoi.json"
    monkeypatch.setattr(hanoi, "RESULTS", out)
    assert hanoi.main(["--disks", "3-5"]) == 0
    import json

    rows = json.loads(out.read_text())["rows"]
    assert [r["disks"] for r in rows] == [3, 4, 5] and all(r["solved"] for r in rows)


def test_the_micro_question_chain_plays_a_whole_game_when_every_answer_is_true() -> None:
    """The chain's routing and the oracle agree: true answers make the optimal game, odd and even."""
    import asyncio

    micro = load_bench_module("hanoi_micro")
    seen: dict[str, Any] = {}

    async def oracle(question: Any, i: int) -> str:
        return micro.truth(question, seen["state"], seen["previous"])  # type: ignore[no-any-return]

    async def game(disks: int) -> tuple[Any, ...]:
        seen.update(state=hanoi.start_state(disks), previous=None)
        for _ in range(2**disks - 1):
            result = await micro.ask(micro.move_chain(seen["state"], seen["previous"]), oracle, VotingConfig(n=1, k=1))
            assert len(result.steps) == 6
            seen.update(state=hanoi.apply(seen["state"], result.value), previous=result.value)
        return tuple(seen["state"])

    assert asyncio.run(game(4)) == ((), (), (4, 3, 2, 1))
    assert asyncio.run(game(3)) == ((), (), (3, 2, 1))
    assert micro.questions_in(3) == 6 * 7


def test_each_question_is_a_lookup_in_a_short_repl_transcript_its_last_line_prints_the_answer() -> None:
    micro = load_bench_module("hanoi_micro")
    chain = micro.move_chain(((3, 2), (), (1,)), (1, 0, 2))  # 3 disks: disk 1 went from A to C
    first = next(chain)
    assert first.context == micro.HEADER and first.answers == ("None", "1", "2", "3")
    assert first.text.splitlines() == [
        '>>> previous_move = (1, "A", "C")  # (disk, from peg, to peg)',
        ">>> print(previous_move[0] if previous_move else None)",
    ]
    top_a = chain.send("1")
    assert top_a.text.splitlines() == [">>> A = [2, 3]", ">>> first, *rest = A or [None]", ">>> print(first)"]
    chain.send("2")
    chain.send("None")
    peg = chain.send("1")
    assert peg.text.splitlines() == [
        '>>> where_is_disk_two = "A"',
        '>>> where_is_disk_one = "C"',
        ">>> print(where_is_disk_one)",
    ]
    smaller = chain.send("C")  # disk 1 moved last: the smaller of the two other tops moves
    assert smaller.text == '>>> print(min(2, float("inf")))' and smaller.answers == ("2", "inf")
    assert smaller.variants == ('>>> print(min(float("inf"), 2))',)  # half the voters see the other order
    with pytest.raises(StopIteration) as done:
        chain.send("2")
    assert done.value.value == (2, 0, 1)


def test_when_earlier_answers_leave_no_move_to_read_the_chain_ends_with_an_illegal_one() -> None:
    micro = load_bench_module("hanoi_micro")
    chain = micro.move_chain(((3, 2), (), (1,)), (1, 0, 2))
    next(chain)
    for answer in ("1", "None", "None", "1"):  # A's top wrongly read as empty: A and B look alike
        chain.send(answer)
    with pytest.raises(StopIteration) as done:
        chain.send("C")
    assert done.value.value[0] == 0  # disk 0: the game counts it as a wrong move


def test_k_is_chosen_for_the_hardest_question_head_to_head_not_the_average() -> None:
    from chrysalis.voting.core import Vote
    from chrysalis.voting.micro import Question, Step

    micro = load_bench_module("hanoi_micro")
    tally = micro.Tally()
    easy = Question("top_of_A", "t", ("1", "2", "3"))
    hard = Question("peg_of_disk_1", "t", ("A", "B", "C"))
    for _ in range(20):
        tally.add(Step(easy, "1", Vote("1", {"1": 10}, 10)), "1", "1")
    tally.add(Step(hard, "A", Vote("A", {"A": 10, "B": 5, "C": 2}, 17)), "A", "A")
    assert tally.worst == (11 / 17, "peg_of_disk_1")  # (10 + 1) / (10 + 5 + 2): the strongest rival only
    assert tally.accuracy_for_k() == 11 / 17 < tally.average_accuracy()
    assert micro.maker_k(6000, tally.accuracy_for_k()) > micro.maker_k(6000, tally.average_accuracy())
    tally.add(Step(hard, "B", Vote("B", {"A": 4, "B": 6}, 10)), "A", "B")  # the right answer trails: no k helps
    assert tally.accuracy_for_k() == tally.average_accuracy()
