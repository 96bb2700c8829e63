"""compile(): bootstrap, mutations, MAP-Elites and reflection against a fake model that rewards help.

The fake (``tests.evolve.fakes.Adder``) gets about half the sums right as a plain predictor, about three
quarters with demos or careful instructions, and all of them with chain of thought, which also costs 100
more output tokens per call: the best variant is the expensive one. Latency comes from a steady fake clock
(``steady_clock``), so bins and elites are the same on every run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import chrysalis
from chrysalis.evolve import predict
from chrysalis.evolve.archive import ModuleArchive
from chrysalis.evolve.compile import CompiledModule, CompileProgress
from chrysalis.evolve.compile import compile as compile_module
from chrysalis.evolve.module import Predict
from chrysalis.evolve.options import Budget, CompileOptions, OptionError, Search
from chrysalis.evolve.predict import render_system
from chrysalis.llm.testing import output_call
from tests.helpers import CAREFUL, TRAIN, Adder, FakeClock, system_prompt

pytestmark = pytest.mark.usefixtures("steady_clock")

SHORTHAND = "question -> answer: int"
DEV_SIZE = len(TRAIN) // 2


def summary(archive: ModuleArchive) -> list[tuple[str, float, str, str | None]]:
    return [(p.id, p.phenotype.score, p.operator, p.parent) for p in archive.points]


def exact_answer(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
    return float(example["answer"] == prediction["answer"])


@pytest.fixture(scope="module")
def compiled_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compiled")


@pytest.fixture(scope="module")
def compiled(compiled_home: Path) -> CompiledModule:
    """One default compile, shared by the tests that only read its result; saved as 'adder' in its own home."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(predict, "time", FakeClock())
        return compile_module(Predict(SHORTHAND), TRAIN, "exact", model=Adder().model, home=compiled_home, name="adder")


# (1) compile improves on the base module


def test_the_base_module_is_in_the_archive_as_a_seed(compiled: CompiledModule) -> None:
    base = compiled.archive.get(Predict(SHORTHAND).id)
    assert (base.operator, base.parent) == ("seed", None)
    assert base.module.demos == ()


def test_the_compiled_best_scores_higher_than_the_base_module(compiled: CompiledModule) -> None:
    base = compiled.archive.get(Predict(SHORTHAND).id)
    assert compiled.archive.best.phenotype.score == 1.0 > base.phenotype.score


def test_bootstrapped_demos_and_careful_instructions_each_help(compiled: CompiledModule) -> None:
    by_operator = {p.operator: p for p in compiled.archive.points}
    base, demos, careful = by_operator["seed"], by_operator["seed: demos"], by_operator["generated"]
    assert len(demos.module.demos) == 3
    assert careful.module.instructions == CAREFUL
    assert base.phenotype.score < demos.phenotype.score < 1.0
    assert base.phenotype.score < careful.phenotype.score < 1.0


def test_every_variant_records_how_it_was_made(compiled: CompiledModule) -> None:
    ids = {p.id for p in compiled.archive.points}
    for p in compiled.archive.points:
        assert p.operator.split(":")[0] in {"seed", "mutation", "generated", "reflect", "demos", "strategy"}
        assert p.parent is None or p.parent in ids
    assert len(ids) == len(compiled.archive.points)
    assert len(ids) + compiled.archive.meta["screened_out"] > 7


# (1b) screening on a minibatch


def test_variants_that_do_not_help_on_their_minibatch_stay_out_of_the_archive(compiled: CompiledModule) -> None:
    # The seed's mutations leave the fake's answers as they are with demos alone and lengthen the prompt.
    assert not [p for p in compiled.archive.points if p.operator.startswith("mutation")]
    assert compiled.archive.meta["screened_out"] >= 3


def test_a_screened_out_variant_costs_its_minibatch_not_the_dev_set() -> None:
    # Broken reasoning never validates: screened, chain of thought costs 3 rollouts instead of 8.
    options: dict[str, Any] = {"iterations": 0, "mutations": (), "generated": 0, "save": False}
    screened = compile_module(
        Predict(SHORTHAND), TRAIN, model=Adder(broken_reasoning=True).model, minibatch=3, **options
    )
    unscreened = compile_module(
        Predict(SHORTHAND), TRAIN, model=Adder(broken_reasoning=True).model, minibatch=0, **options
    )
    assert [p.module.strategy for p in screened.archive.points] == ["predict", "predict"]
    assert screened.archive.meta["screened_out"] == 1 and unscreened.archive.meta["screened_out"] == 0
    assert unscreened.archive.meta["rollouts"] - screened.archive.meta["rollouts"] == DEV_SIZE - 3


def test_an_accepted_variant_reuses_its_minibatch_rollouts_for_the_dev_set() -> None:
    reasoning_calls = 0
    adder = Adder()

    def counting(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal reasoning_calls
        reasoning_calls += "reasoning" in info.output_tools[0].parameters_json_schema["properties"]
        return adder(messages, info)

    options: dict[str, Any] = {"iterations": 0, "mutations": (), "generated": 0, "save": False, "minibatch": 3}
    result = compile_module(Predict(SHORTHAND), TRAIN, model=FunctionModel(counting), **options)
    # The minibatch holds the demos variant's failures, so always-right reasoning beats it there.
    assert result.best.strategy == "chain-of-thought" and result.archive.best.phenotype.score == 1.0
    assert reasoning_calls == DEV_SIZE
    assert result.archive.meta["rollouts"] == adder.calls == result.archive.meta["model_calls"]


# (2) priorities


def test_cheap_picks_an_elite_with_fewer_tokens_than_best(compiled: CompiledModule) -> None:
    best, cheap = compiled.choose("best").point, compiled.choose("cheap").point
    assert best.module.strategy == "chain-of-thought"
    assert cheap.module.strategy == "predict"
    assert cheap.phenotype.tokens < best.phenotype.tokens
    assert compiled.archive.thresholds.cost_in_tokens  # the fake is free: cheap means fewer tokens


def test_a_sentence_priority_picks_from_the_compiled_archive(compiled: CompiledModule) -> None:
    assert compiled.choose("accurate, money is no object").point.phenotype.score == 1.0
    assert compiled.choose("quick and cheap").point.module.strategy == "predict"


# (3) budgets


@pytest.mark.parametrize("rollouts", [2 * DEV_SIZE, 30, 60])
def test_the_rollout_budget_is_never_exceeded_and_the_archive_is_usable(rollouts: int) -> None:
    adder, seen = Adder(), list[CompileProgress]()
    result = compile_module(Predict(SHORTHAND), TRAIN, model=adder.model, rollouts=rollouts, progress=seen.append)
    assert adder.calls <= rollouts
    assert all(p.rollouts <= rollouts for p in seen)
    assert seen[-1].rollout_budget == rollouts and seen[-1].phase == "done"
    assert result.archive.version == 1
    assert result.choose("cheap").point in result.archive.points


def test_the_smallest_allowed_budget_still_measures_the_base_module() -> None:
    result = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, rollouts=DEV_SIZE)
    assert [p.operator for p in result.archive.points] == ["seed"]


def test_validation_retries_are_part_of_a_rollout_and_counted_as_model_calls() -> None:
    adder = Adder()
    calls = 0

    def late(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal calls
        calls += 1
        retrying = isinstance(messages[-1], ModelRequest) and isinstance(messages[-1].parts[0], ToolReturnPart)
        return (
            adder(messages, info)
            if retrying or "You improve" in system_prompt(messages)
            else output_call({"answer": "?"}).response()
        )

    compiled = compile_module(Predict(SHORTHAND), TRAIN, model=FunctionModel(late), rollouts=30)
    meta = compiled.archive.meta
    assert meta["rollouts"] <= 30 and meta["model_calls"] == calls > meta["rollouts"]


def test_a_usd_budget_stops_the_compile_early() -> None:
    unlimited, limited = Adder(name="gpt-4o-mini"), Adder(name="gpt-4o-mini")
    full = compile_module(Predict(SHORTHAND), TRAIN, model=unlimited.model, save=False)
    spent = full.archive.meta["cost_usd"]
    assert spent > 0
    cut = compile_module(Predict(SHORTHAND), TRAIN, model=limited.model, budget_usd=spent / 4, save=False)
    assert limited.calls < unlimited.calls
    assert cut.archive.points and cut.archive.meta["cost_usd"] < spent / 2


# (4) reproducible


def test_the_same_seed_in_fresh_homes_gives_the_same_archive(tmp_path: Path) -> None:
    one = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, seed=7, home=tmp_path / "one")
    two = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, seed=7, home=tmp_path / "two")
    assert summary(one.archive) == summary(two.archive)


def test_the_same_seed_gives_the_same_archive_whatever_the_latencies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archives = []
    for jitter in (1, 2):  # two runs on a busy machine: same inputs, different timings
        monkeypatch.setattr(predict, "time", FakeClock(jitter=jitter))
        home = tmp_path / str(jitter)
        archives.append(compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, seed=7, home=home).archive)
    assert summary(archives[0]) == summary(archives[1])


def test_a_different_seed_gives_a_different_split(tmp_path: Path) -> None:
    one = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, seed=1, home=tmp_path / "a")
    two = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, seed=2, home=tmp_path / "b")
    assert one.archive.meta["compile_key"] != two.archive.meta["compile_key"]
    assert one.archive.get(Predict(SHORTHAND).id).phenotype != two.archive.get(Predict(SHORTHAND).id).phenotype


# (5) resume


def test_an_interrupted_compile_resumes_from_its_finished_rollouts(tmp_path: Path) -> None:
    calls, broken = 0, True

    def metric(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        nonlocal calls
        calls += 1
        if broken and calls == 25:
            raise ZeroDivisionError("metric bug")
        return exact_answer(example, prediction)

    with pytest.raises(chrysalis.MetricError, match=r"ZeroDivisionError: metric bug on dev example \d"):
        compile_module(Predict(SHORTHAND), TRAIN, metric, model=Adder().model)
    with pytest.raises(KeyError):
        ModuleArchive.load("Shorthand")  # nothing saved by the interrupted run

    broken = False
    resumed_model, seen = Adder(), list[CompileProgress]()
    resumed = compile_module(Predict(SHORTHAND), TRAIN, metric, model=resumed_model.model, progress=seen.append)
    fresh_model = Adder()
    fresh = compile_module(Predict(SHORTHAND), TRAIN, metric, model=fresh_model.model, home=tmp_path)

    assert seen[-1].replayed == 24
    assert resumed_model.calls == fresh_model.calls - 24
    assert summary(resumed.archive) == summary(fresh.archive)


def test_rerunning_a_finished_compile_replays_everything() -> None:
    compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, iterations=1)
    again, seen = Adder(), list[CompileProgress]()
    result = compile_module(Predict(SHORTHAND), TRAIN, model=again.model, iterations=1, progress=seen.append)
    assert again.calls == 0
    assert seen[-1].replayed == seen[-1].rollouts > 0
    assert result.archive.version == 2


# (6) bad inputs


@pytest.mark.parametrize(
    ("trainset", "options", "message"),
    [
        ([], {}, "trainset is empty; give at least one example: a dict with the fields ['question', 'answer']"),
        ([*TRAIN[:2], {"question": "1 + 1"}], {}, "trainset[2] lacks the field(s) ['answer']"),
        ([TRAIN[0], "1 + 1 = 2"], {}, "trainset[1] is str, not a dict"),
        (TRAIN, {"devset": [{"answer": 2}]}, "devset[0] lacks the field(s) ['question']"),
        (TRAIN, {"metric": "accuracy"}, "metric 'accuracy' is unknown; use one of exact, f1, json"),
        (TRAIN, {"rollouts": DEV_SIZE - 1}, f"rollouts must be at least {DEV_SIZE} to evaluate the base module once"),
        (TRAIN, {"devset": TRAIN[:3], "rollouts": 2}, "rollouts must be at least 3 to evaluate the base module"),
        (TRAIN, {"iterations": -1}, "iterations must be 0 or more"),
        (TRAIN, {"minibatch": -2}, "minibatch must be 0 or more, got -2"),
    ],
)
def test_bad_inputs_are_value_errors_saying_what_is_wrong(
    trainset: list[Any], options: dict[str, Any], message: str
) -> None:
    adder = Adder()
    with pytest.raises(ValueError, match=re.escape(message)):
        compile_module(Predict(SHORTHAND), trainset, model=adder.model, **options)
    assert adder.calls == 0


@pytest.mark.parametrize(
    ("make", "given", "message"),
    [
        (Search, {"k_demos": -1}, "k_demos must be 0 or more, got -1"),
        (Search, {"iterations": 2.5}, "iterations must be a whole number, 0 or more, got 2.5"),
        (Search, {"mutations": "Be concise."}, "mutations must be a list of instruction strings"),
        (Search, {"seed": None}, "seed must be a whole number, got None"),
        (Budget, {"rollouts": 0}, "rollouts must be 1 or more, got 0"),
        (Budget, {"budget_usd": 0}, "budget_usd must be a number of USD above 0, got 0"),
        (CompileOptions, {"name": ""}, "name must be a non-empty string"),
        (CompileOptions, {"budget": {"rollouts": 10}}, "budget must be a Budget(...), got {'rollouts': 10}"),
        (CompileOptions().replace, {"minibatch": -2}, "minibatch must be 0 or more, got -2"),
    ],
)
def test_bad_options_are_value_errors_naming_the_option_and_what_is_allowed(
    make: Any, given: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError, match=re.escape(message)) as raised:
        make(**given)
    assert isinstance(raised.value, ValueError) and raised.value.option == next(iter(given))


def test_an_unknown_keyword_is_a_type_error_that_lists_the_options() -> None:
    adder = Adder()
    expected = "unknown compile option(s) 'rollout' (did you mean 'rollouts'?); the options are k_demos, iterations"
    with pytest.raises(TypeError, match=re.escape(expected)) as raised:
        compile_module(Predict(SHORTHAND), TRAIN, model=adder.model, rollout=10)
    assert str(raised.value).endswith("rollouts, budget_usd, name, save")
    assert adder.calls == 0


def test_an_options_object_and_keywords_make_the_same_compile() -> None:
    options = CompileOptions(search=Search(iterations=0, seed=3), save=False)
    by_object = compile_module(Predict(SHORTHAND), TRAIN, options=options, model=Adder().model)
    by_keywords = compile_module(Predict(SHORTHAND), TRAIN, model=Adder().model, iterations=0, seed=3, save=False)
    assert by_object.archive.meta["compile_key"] == by_keywords.archive.meta["compile_key"]
    assert summary(by_object.archive) == summary(by_keywords.archive)
    assert chrysalis.CompileOptions is CompileOptions and chrysalis.compile is compile_module


def test_keywords_apply_over_an_options_object_without_changing_it() -> None:
    options = CompileOptions(search=Search(iterations=0), budget=Budget(rollouts=100), save=False)
    result = compile_module(Predict(SHORTHAND), TRAIN, options=options, model=Adder().model, rollouts=DEV_SIZE)
    assert [p.operator for p in result.archive.points] == ["seed"]  # only the base fits DEV_SIZE rollouts
    assert result.archive.version is None  # save=False from the object still holds
    assert options.budget.rollouts == 100 and options.replace(seed=4).search == Search(iterations=0, seed=4)


def test_mutations_are_kept_as_a_tuple_so_options_stay_immutable() -> None:
    mutations = ["Be brief."]
    search = Search(mutations=mutations)
    mutations.append("Be long.")
    assert search.mutations == ("Be brief.",) and hash(CompileOptions(search=search))


def test_a_small_trainset_is_both_demo_source_and_dev_set() -> None:
    result = compile_module(Predict(SHORTHAND), TRAIN[:3], model=Adder().model, iterations=0)
    assert (result.archive.meta["train"], result.archive.meta["dev"]) == (3, 3)


def test_a_given_devset_is_where_variants_are_scored() -> None:
    result = compile_module(Predict(SHORTHAND), TRAIN[:4], devset=TRAIN[4:6], model=Adder().model, iterations=0)
    assert (result.archive.meta["train"], result.archive.meta["dev"]) == (4, 2)


# (7) saved and loaded


def test_the_archive_is_saved_and_load_gives_the_same_best(compiled: CompiledModule, compiled_home: Path) -> None:
    assert compiled.archive.version == 1
    loaded = CompiledModule.load("adder", home=compiled_home)
    assert loaded.best.id == compiled.best.id
    assert loaded.archive.best.phenotype == compiled.archive.best.phenotype
    assert summary(loaded.archive) == summary(compiled.archive)


def test_compile_saves_under_the_signature_name_by_default() -> None:
    compile_module(Predict(SHORTHAND), TRAIN[:3], model=Adder().model, iterations=0)
    assert ModuleArchive.load("Shorthand").version == 1


def test_save_false_saves_nothing() -> None:
    result = compile_module(Predict(SHORTHAND), TRAIN[:3], model=Adder().model, iterations=0, save=False)
    assert result.archive.version is None
    with pytest.raises(KeyError):
        ModuleArchive.load("Shorthand")


# (8) validation failures


def test_variants_whose_outputs_never_validate_score_zero_and_compile_finishes() -> None:
    # Without screening, so the broken variants are scored on the whole dev set.
    result = compile_module(Predict(SHORTHAND), TRAIN, model=Adder(broken_reasoning=True).model, minibatch=0)
    reasoning = [p for p in result.archive.points if p.module.strategy == "chain-of-thought"]
    assert reasoning
    assert all(p.phenotype.score == 0.0 and p.phenotype.errors == DEV_SIZE for p in reasoning)
    assert all(p.phenotype.errors == 0 for p in result.archive.points if p.module.strategy == "predict")
    assert result.archive.version == 1
    assert result.best.strategy == "predict"


def test_calls_whose_outputs_fail_validation_are_still_paid_for() -> None:
    result = compile_module(
        Predict(SHORTHAND), TRAIN, model=Adder(broken_reasoning=True, name="gpt-4o-mini").model, save=False, minibatch=0
    )
    reasoning = [p for p in result.archive.points if p.module.strategy == "chain-of-thought"]
    assert reasoning
    assert all(p.phenotype.tokens > 0 and p.phenotype.cost_usd > 0 for p in reasoning)


# (9) calling a compiled module


def test_calling_with_a_priority_runs_the_chosen_variant(compiled: CompiledModule) -> None:
    seen: list[str] = []
    adder = Adder()

    def recording(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(system_prompt(messages))
        return adder(messages, info)

    model = FunctionModel(recording)
    cheap = compiled(priority="cheap", model=model, question="5 + 10")
    best = compiled(priority="best", model=model, question="5 + 10")
    assert seen == [render_system(compiled.choose("cheap").point.module), render_system(compiled.best)]
    assert cheap.reasoning is None and best.reasoning is not None
    assert best.answer == 15


def test_a_compiled_module_calls_the_compile_model_by_default() -> None:
    adder = Adder()
    result = compile_module(Predict(SHORTHAND), TRAIN[:3], model=adder.model, iterations=0, save=False)
    before = adder.calls
    assert result(question="1 + 2").answer == 3
    assert adder.calls == before + 1


def test_example_values_are_checked_and_coerced_to_the_field_types() -> None:
    with pytest.raises(ValueError, match=r"trainset\[1\] field 'answer' is 'four', which is not a int"):
        compile_module(Predict(SHORTHAND), [TRAIN[0], {**TRAIN[1], "answer": "four"}], save=False)
    coerced = [{**row, "answer": str(row["answer"])} for row in TRAIN]
    compiled = compile_module(Predict(SHORTHAND), coerced, model=Adder().model, save=False, iterations=0)
    assert compiled.archive.best.phenotype.score > 0
