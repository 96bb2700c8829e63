"""bench/hanoi.py: the Hanoi domain is right, MAKER's arithmetic holds, and the loop solves small games."""

from __future__ import annotations

import random

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
