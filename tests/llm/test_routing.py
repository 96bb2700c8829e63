"""Model routing: Beta posteriors from the eval store, Thompson draws, and the cost prior."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.config import DEFAULT_MODEL, load_settings
from chrysalis.errors import ConfigError
from chrysalis.llm.model_catalog import Catalog
from chrysalis.llm.routing import ModelRouter, Preference, auto_candidates, blended_price
from chrysalis.stores import Stores

LOCAL = "local:qwen2.5-coder-1.5b"
MINI = "openai:gpt-4o-mini"  # 0.15 in / 0.60 out per million: blended 0.2625
OPUS = "anthropic:claude-3-opus"  # 15 / 75: blended 30


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Stores]:
    with Stores.open(tmp_path / "home") as opened:
        yield opened


def record(stores: Stores, model: str, task_type: str, successes: int, failures: int) -> None:
    for i in range(successes + failures):
        stores.evals.log(
            run_id=f"r{i}",
            profile="all",
            task_type=task_type,
            model=model,
            success=i < successes,
            duration_ms=100.0,
            cost_usd=0.0,
            input_tokens=10,
            output_tokens=1,
        )


def test_posterior_is_the_cost_prior_plus_the_record(stores: Stores) -> None:
    record(stores, LOCAL, "fix", successes=3, failures=1)
    record(stores, MINI, "fix", successes=1, failures=4)
    record(stores, MINI, "explain", successes=9, failures=0)  # another task type does not count
    local, mini = ModelRouter(stores.evals).posteriors("fix", [LOCAL, MINI])
    # Two candidates: the free one is the cheapest (cheapness 1), the other the dearest (0).
    assert (local.cheapness, mini.cheapness) == (1.0, 0.0)
    assert (local.alpha, local.beta) == (2.0 + 3, 1.0 + 1)
    assert (mini.alpha, mini.beta) == (1.0 + 1, 2.0 + 4)
    assert local.mean == pytest.approx(5 / 7)
    assert mini.mean == pytest.approx(2 / 8)
    assert (local.runs, local.successes, mini.runs, mini.successes) == (4, 3, 5, 1)
    assert local.usd_per_million == 0.0 and mini.usd_per_million == pytest.approx(0.75 * 0.15 + 0.25 * 0.60)
    assert local.sample is None


def test_prior_weight_scales_the_cost_prior(stores: Stores) -> None:
    flat = ModelRouter(stores.evals, prior_weight=0.0).posteriors("fix", [LOCAL, MINI])
    assert [(p.alpha, p.beta) for p in flat] == [(1.0, 1.0), (1.0, 1.0)]
    strong = ModelRouter(stores.evals, prior_weight=4.0).posteriors("fix", [LOCAL, MINI])
    assert [(p.alpha, p.beta) for p in strong] == [(5.0, 1.0), (1.0, 5.0)]
    with pytest.raises(ValueError, match="prior_weight"):
        ModelRouter(stores.evals, prior_weight=-1.0)


def test_cheapness_is_log_scaled_and_unknown_prices_count_as_dearest(stores: Stores) -> None:
    local, mini, opus, unknown = ModelRouter(stores.evals).posteriors("fix", [LOCAL, MINI, OPUS, "openai:no-such"])
    assert local.cheapness == 1.0 and opus.cheapness == 0.0 and unknown.cheapness == 0.0
    assert unknown.usd_per_million is None
    # On a log scale gpt-4o-mini sits near the free model, far from Opus (a linear scale would put it at 0.99 too,
    # but gpt-4o at 4.4 USD would get 0.86 instead of about 0.51).
    assert 0.9 < mini.cheapness < 1.0
    same = ModelRouter(stores.evals).posteriors("fix", ["openai:x1", "openai:x2"])
    assert [p.cheapness for p in same] == [0.5, 0.5]  # nothing to tell them apart: a neutral prior


def test_seeded_choices_are_reproducible(stores: Stores) -> None:
    record(stores, LOCAL, "fix", successes=2, failures=2)
    router = ModelRouter(stores.evals)
    first = router.choose("fix", [LOCAL, MINI, OPUS], rng=random.Random(42))
    again = router.choose("fix", [LOCAL, MINI, OPUS], rng=random.Random(42))
    assert first == again
    assert all(p.sample is not None and 0.0 <= p.sample <= 1.0 for p in first.posteriors)
    assert first.model == max(first.posteriors, key=lambda p: p.sample or 0.0).model
    picks = {router.choose("fix", [LOCAL, MINI, OPUS], rng=random.Random(seed)).model for seed in range(50)}
    assert len(picks) > 1  # it explores: with little evidence every candidate gets picked sometimes


def pick_counts(stores: Stores, candidates: list[str], draws: int = 400) -> Counter[str]:
    router = ModelRouter(stores.evals)
    rng = random.Random(7)
    return Counter(router.choose("fix", candidates, rng=rng).model for _ in range(draws))


def test_more_successes_shift_the_pick(stores: Stores) -> None:
    before = pick_counts(stores, [LOCAL, MINI])
    assert before[LOCAL] > before[MINI]  # no evidence: the free model is favoured
    record(stores, LOCAL, "fix", successes=1, failures=7)
    record(stores, MINI, "fix", successes=7, failures=1)
    after = pick_counts(stores, [LOCAL, MINI])
    assert after[MINI] > 0.9 * sum(after.values())
    assert ModelRouter(stores.evals).preferred("fix", [LOCAL, MINI]).model == MINI


def test_the_cost_prior_breaks_ties_toward_the_cheaper_model(stores: Stores) -> None:
    for model in (MINI, OPUS):
        record(stores, model, "fix", successes=6, failures=4)
    router = ModelRouter(stores.evals)
    mini, opus = router.posteriors("fix", [OPUS, MINI])[::-1]
    assert mini.mean > opus.mean
    assert router.preferred("fix", [OPUS, MINI]).model == MINI
    counts = pick_counts(stores, [OPUS, MINI])
    assert counts[MINI] > counts[OPUS]


def test_choose_explains_itself_and_drops_duplicates(stores: Stores) -> None:
    record(stores, MINI, "fix", successes=3, failures=1)
    choice = ModelRouter(stores.evals).choose("fix", [MINI, LOCAL, MINI], rng=random.Random(1))
    assert [p.model for p in choice.posteriors] == [MINI, LOCAL]
    text = choice.explain()
    assert text.startswith(f"auto picked {choice.model} for 'fix' tasks")
    assert "3/4 runs" in text and "0/0 runs" in text
    as_json = choice.posteriors[0].to_json()
    assert as_json["model"] == MINI and as_json["runs"] == 4 and as_json["alpha"] == 4.0
    with pytest.raises(ValueError, match="at least one candidate"):
        ModelRouter(stores.evals).choose("fix", [])


def test_blended_price() -> None:
    assert blended_price(LOCAL) == 0.0
    assert blended_price("ollama:qwen2.5-coder") == 0.0
    assert blended_price("openai:no-such-model") is None


# -- which models auto chooses among --------------------------------------------------------------------------


def test_default_candidates_are_local_plus_each_keyed_provider(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "model": "auto"})
    assert auto_candidates(settings, environ={}) == (DEFAULT_MODEL,)
    keyed = auto_candidates(settings, environ={"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": " "})
    # Without the local weights and with a remote model available, the local model is left out.
    assert keyed == ("openai:gpt-4o-mini",)


def test_default_candidates_keep_the_local_model_when_its_weights_are_cached(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("chrysalis.llm.routing.is_cached", lambda info, home: True)
    settings = load_settings({"workspace": workspace, "model": "auto"})
    assert auto_candidates(settings, environ={"OPENAI_API_KEY": "k"}) == (DEFAULT_MODEL, "openai:gpt-4o-mini")


def test_configured_candidates_are_checked(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace, "model": "auto", "auto_models": [LOCAL, MINI]})
    assert auto_candidates(settings, environ={"OPENAI_API_KEY": "k"}) == (LOCAL, MINI)


@pytest.mark.parametrize(
    ("models", "base_url", "needles"),
    [
        (["nosuch:thing"], None, ["'nosuch:thing' in 'auto_models'", "Known providers", "provider:name"]),
        (["bare-name"], None, ["'bare-name' in 'auto_models'", "has no provider"]),
        (["local:no-such-model"], None, ["Known local models"]),
        ([MINI], None, ["OPENAI_API_KEY", "remove 'openai:gpt-4o-mini' from auto_models"]),
        ([], "http://127.0.0.1:9/v1", ["needs 'auto_models'"]),
    ],
)
def test_bad_candidates_are_config_errors_naming_the_key(
    workspace: Path, models: list[str], base_url: str | None, needles: list[str]
) -> None:
    settings = load_settings({"workspace": workspace, "model": "auto", "auto_models": models, "base_url": base_url})
    with pytest.raises(ConfigError) as caught:
        auto_candidates(settings, environ={})
    assert caught.value.exit_code == 2
    for needle in needles:
        assert needle in str(caught.value)


def test_with_a_base_url_bare_names_are_candidates(workspace: Path) -> None:
    settings = load_settings(
        {
            "workspace": workspace,
            "model": "auto",
            "auto_models": "a-model, b-model",
            "base_url": "http://127.0.0.1:9/v1",
        }
    )
    assert auto_candidates(settings, environ={}) == ("a-model", "b-model")


# -- the catalogue: capabilities, the priority's preference, draft→refine --------------------------------------------


def catalog_of(tmp_path: Path, models: dict[str, dict[str, object]]) -> Catalog:
    (tmp_path / "models.json").write_text(json.dumps({"models": models}))
    return Catalog.load(tmp_path)


def test_a_task_that_needs_code_is_routed_only_among_models_that_can_code(stores: Stores, tmp_path: Path) -> None:
    catalog = catalog_of(tmp_path, {"openai:chatty": {"capabilities": ["tools"]}})
    router = ModelRouter(stores.evals, catalog=catalog)
    choices = {
        router.choose("fix", ["openai:chatty", MINI], rng=random.Random(s), need={"coding"}).model for s in range(20)
    }
    assert choices == {MINI}
    choice = router.choose("fix", ["openai:chatty", MINI], rng=random.Random(0), need={"coding"})
    assert choice.dropped == ("openai:chatty",) and "left out (no coding): openai:chatty" in choice.explain()
    # When no candidate has the capability, none is dropped: the run still gets a model.
    assert router.capable(["openai:chatty"], {"coding"}) == (["openai:chatty"], [])


def test_the_priority_moves_the_prior_towards_cheap_fast_or_strong_models(stores: Stores) -> None:
    candidates = [LOCAL, MINI, "openai:gpt-4.1"]

    def fitness(preference: Preference) -> list[float]:
        return [
            round(p.fitness, 3) for p in ModelRouter(stores.evals, preference=preference).posteriors("fix", candidates)
        ]

    cheap, fast = fitness(Preference(cost=1)), fitness(Preference(cost=0, speed=1))
    strong = fitness(Preference(cost=0, strength=1))
    assert cheap[0] == 1.0 and cheap[2] == 0.0  # the free model first, the dearest last
    assert fast[1] == 1.0 and fast[0] < fast[1]  # gpt-4o-mini is the fast one
    assert strong[2] == 1.0 and strong[0] == 0.0  # gpt-4.1 is the strongest, the 1.5B model the weakest
    assert fitness(Preference(cost=0, speed=0, strength=0)) == [0.5, 0.5, 0.5]


def test_a_stated_cost_tier_ranks_a_model_whose_price_is_unknown(stores: Stores, tmp_path: Path) -> None:
    catalog = catalog_of(tmp_path, {"small": {"cost_tier": "free"}, "big": {"cost_tier": "high"}})
    small, big, guessed = ModelRouter(stores.evals, catalog=catalog).posteriors("fix", ["small", "big", "other"])
    assert small.cheapness == 1.0 and small.usd_per_million == 0.0 and big.usd_per_million == 30.0
    assert guessed.usd_per_million is None and guessed.cheapness == 0.0  # a guess is no price: the dearest


def test_the_refiner_is_the_strongest_capable_candidate_stronger_than_the_draft(stores: Stores, tmp_path: Path) -> None:
    catalog = catalog_of(tmp_path, {"openai:gpt-4.1": {"capabilities": ["tools"]}})  # strong, but cannot code here
    router = ModelRouter(stores.evals, catalog=catalog)
    candidates = [LOCAL, MINI, "openai:gpt-4o", "openai:gpt-4.1"]
    assert router.refiner("fix", candidates, LOCAL, need={"coding"}) == "openai:gpt-4o"
    assert router.refiner("explain", candidates, LOCAL) == "openai:gpt-4.1"
    assert router.refiner("fix", candidates, "openai:gpt-4o", need={"coding"}) is None  # nothing stronger
    record(stores, MINI, "fix", successes=0, failures=6)
    record(stores, "openai:gpt-4.1-mini", "fix", successes=6, failures=0)
    # Equally strong (4): the better record wins.
    assert router.refiner("fix", [LOCAL, "openai:gpt-4o", "openai:gpt-4.1-mini"], LOCAL) == "openai:gpt-4.1-mini"


def test_a_repair_under_auto_runs_on_the_routers_pick(
    stores: Stores, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chrysalis.agent.choice import routed_model  # the agent layer's use of the router (chrysalis fix)

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    fixed = load_settings({"workspace": workspace, "model": MINI})
    assert routed_model(fixed, stores.evals, "fix") == MINI
    auto = load_settings({"workspace": workspace, "model": "auto"})
    assert routed_model(auto, stores.evals, "fix") == "openai:gpt-4o-mini"  # the one keyed candidate
