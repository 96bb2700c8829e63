"""The MAP-Elites archive: median bins, elites, persistence with versions, the Pareto front."""

from __future__ import annotations

from typing import Any

import pytest

from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point, pareto_front
from chrysalis.evolve.module import Predict
from chrysalis.evolve.signature import Signature

SIG = Signature.parse("question -> answer: int", name="Sum")


def point(
    tag: str,
    score: float,
    *,
    cost: float = 0.0,
    latency: float = 10.0,
    tokens: float = 100.0,
    errors: int = 0,
    parent: str | None = None,
    operator: str = "seed",
) -> Point:
    """A measured variant; ``tag`` becomes its instructions, so each tag has its own id."""
    return Point(Predict(SIG, instructions=tag), Phenotype(score, latency, cost, tokens, errors), parent, operator)


def archive(*points: Point, name: str = "sum") -> ModuleArchive:
    return ModuleArchive(name, SIG, list(points))


# Four points, one per bin; medians: cost 2.5, latency 25, tokens 250.
A = point("a", 0.9, cost=1.0, latency=40, tokens=100)  # cheap, slow, compact
B = point("b", 0.8, cost=2.0, latency=10, tokens=400)  # cheap, fast, verbose
C = point("c", 0.7, cost=3.0, latency=20, tokens=200)  # premium, fast, compact
D = point("d", 0.6, cost=4.0, latency=30, tokens=300)  # premium, slow, verbose


def test_each_axis_is_split_at_its_median() -> None:
    found = archive(A, B, C, D)
    limits = found.thresholds
    assert (limits.cost, limits.latency_ms, limits.tokens, limits.cost_in_tokens) == (2.5, 25.0, 250.0, False)
    assert {p.id: key for key, points in found.bins().items() for p in points} == {
        A.id: ("cheap", "slow", "compact"),
        B.id: ("cheap", "fast", "verbose"),
        C.id: ("premium", "fast", "compact"),
        D.id: ("premium", "slow", "verbose"),
    }


def test_a_point_at_the_median_is_cheap_fast_and_compact() -> None:
    middle = point("m", 0.5, cost=2.0, latency=20, tokens=200)
    found = archive(
        point("lo", 0.5, cost=1.0, latency=10, tokens=100), middle, point("hi", 0.5, cost=3.0, latency=30, tokens=300)
    )
    assert found.thresholds.bin_of(middle.phenotype) == ("cheap", "fast", "compact")


def test_when_every_cost_is_equal_the_cost_axis_is_tokens() -> None:
    free = [point(str(t), 0.5, cost=0.0, tokens=t) for t in (100, 200, 300, 400)]
    found = archive(*free)
    assert found.thresholds.cost_in_tokens
    assert found.thresholds.cost == 250.0
    assert [found.thresholds.bin_of(p.phenotype)[0] for p in free] == ["cheap", "cheap", "premium", "premium"]


def test_the_elite_of_a_bin_is_its_best_score() -> None:
    better = point("better", 0.95, cost=1.5, latency=35, tokens=120)  # joins A's bin
    elites = archive(A, B, C, D, better).elites()
    assert elites[("cheap", "slow", "compact")].id == better.id
    assert len(elites) == 4
    assert all(key in elites for key in [("cheap", "fast", "verbose"), ("premium", "fast", "compact")])


@pytest.mark.parametrize(
    ("loser", "winner"),
    [
        ({"cost": 0.2}, {"cost": 0.1}),  # equal score: the cheaper
        ({"tokens": 110}, {"tokens": 100}),  # equal score and cost: the shorter
        ({"latency": 12}, {"latency": 11}),  # equal score, cost and tokens: the faster
    ],
)
def test_ties_in_score_go_to_cheaper_then_shorter_then_faster(
    loser: dict[str, float], winner: dict[str, float]
) -> None:
    same = {"cost": 0.1, "tokens": 100.0, "latency": 11.0}

    def tied(tag: str, changed: dict[str, float]) -> Point:
        values = {**same, **changed}
        return point(tag, 0.8, cost=values["cost"], tokens=values["tokens"], latency=values["latency"])

    lose, win = tied("lose", loser), tied("win", winner)
    far = [point(f"far{i}", 0.1, cost=9.0, latency=90, tokens=900) for i in range(2)]
    found = archive(lose, win, *far)
    assert found.elites()[("cheap", "fast", "compact")].id == win.id
    assert found.best.id == win.id


def test_a_higher_score_beats_a_lower_cost() -> None:
    assert archive(point("dear", 0.9, cost=5.0), point("cheap", 0.8, cost=0.1)).best.phenotype.score == 0.9


def test_best_is_the_best_score_overall() -> None:
    assert archive(C, A, D, B).best.id == A.id


def test_an_empty_archive_has_no_best() -> None:
    with pytest.raises(ValueError, match="'sum' is empty"):
        _ = archive().best


def test_adding_a_variant_twice_keeps_the_first_measurement() -> None:
    found = archive(A)
    found.add(point("a", 0.1))
    assert [p.phenotype.score for p in found.points] == [0.9]


def test_get_unknown_id_lists_the_ids() -> None:
    with pytest.raises(KeyError, match=A.id):
        archive(A).get("nope")


def test_phenotype_measure_aggregates_per_example_results() -> None:
    results: list[dict[str, Any]] = [
        {"score": 1.0, "latency_ms": 10.0, "cost_usd": 0.25, "tokens": 100, "error": None},
        {"score": 0.0, "latency_ms": 30.0, "cost_usd": 0.5, "tokens": 300, "error": "bad int"},
        {"score": 0.5, "latency_ms": 20.0, "cost_usd": 0.0, "tokens": 200, "error": None},
    ]
    assert Phenotype.measure(results) == Phenotype(score=0.5, latency_ms=20.0, cost_usd=0.25, tokens=200.0, errors=1)
    with pytest.raises(ValueError, match="at least one"):
        Phenotype.measure([])


def test_json_round_trip_keeps_points_lineage_and_meta() -> None:
    child = point("child", 0.95, parent=A.id, operator="reflect", errors=2)
    found = archive(A, child)
    found.meta = {"model": "function:adder", "seed": 0}
    back = ModuleArchive.from_json(found.to_json())
    assert back.name == "sum"
    assert back.meta == found.meta
    assert [(p.id, p.phenotype, p.parent, p.operator) for p in back.points] == [
        (p.id, p.phenotype, p.parent, p.operator) for p in found.points
    ]
    assert back.signature.fields == SIG.fields


def test_from_json_can_keep_the_users_signature_class() -> None:
    back = ModuleArchive.from_json(archive(A).to_json(), signature=SIG)
    assert back.signature is SIG
    assert back.points[0].module.signature is SIG


def test_save_adds_a_version_each_time_and_load_gives_the_newest() -> None:
    first = archive(A)
    assert first.save() == 1
    second = archive(A, B)
    assert second.save() == 2
    assert second.version == 2
    loaded = ModuleArchive.load("sum")
    assert (loaded.version, [p.id for p in loaded.points]) == (2, [A.id, B.id])


def test_load_a_given_version() -> None:
    archive(A).save()
    archive(A, B).save()
    old = ModuleArchive.load("sum", version=1)
    assert (old.version, [p.id for p in old.points]) == (1, [A.id])


def test_load_a_missing_name_lists_the_saved_names() -> None:
    archive(A, name="adder").save()
    with pytest.raises(KeyError) as raised:
        ModuleArchive.load("adr")
    assert raised.value.args[0] == "no archive 'adr'; saved archives: ['adder']"


def test_load_a_missing_version_names_it() -> None:
    archive(A).save()
    with pytest.raises(KeyError, match="version 7 of 'sum'"):
        ModuleArchive.load("sum", version=7)


def test_load_with_nothing_saved_says_to_compile_first() -> None:
    with pytest.raises(KeyError, match="run chrysalis compile first"):
        ModuleArchive.load("sum")


def test_save_and_load_in_a_given_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("other")
    archive(A).save(home)
    assert ModuleArchive.load("sum", home=home).points[0].id == A.id
    with pytest.raises(KeyError):
        ModuleArchive.load("sum")  # the default home has nothing


def test_pareto_front_drops_dominated_points() -> None:
    best = point("best", 1.0, cost=5.0, latency=50, tokens=500)
    cheap = point("cheap", 0.5, cost=1.0, latency=10, tokens=100)
    worse = point("worse", 0.5, cost=2.0, latency=10, tokens=100)  # as good as cheap, but dearer
    twin = point("twin", 0.5, cost=1.0, latency=10, tokens=100)  # equal to cheap: neither dominates
    assert [p.id for p in pareto_front([best, cheap, worse, twin])] == [best.id, cheap.id, twin.id]
