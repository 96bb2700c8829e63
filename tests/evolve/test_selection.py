"""Priority selection: keywords pick bins, sentences pick through intents, and every choice says why."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from chrysalis.evolve import selection
from chrysalis.evolve.archive import ModuleArchive, Phenotype, Point
from chrysalis.evolve.module import Predict
from chrysalis.evolve.selection import select
from chrysalis.evolve.signature import Signature
from chrysalis.llm.embeddings import LexicalEmbedder, cosine

SIG = Signature.parse("question -> answer: int", name="Sum")


def point(tag: str, score: float, cost: float, latency: float, tokens: float) -> Point:
    return Point(Predict(SIG, instructions=tag), Phenotype(score, latency, cost, tokens))


# Medians: cost 2.25, latency 18, tokens 250. One point per bin.
ACCURATE = point("accurate", 1.0, cost=4.0, latency=40, tokens=400)  # premium, slow, verbose
THRIFTY = point("thrifty", 0.6, cost=1.0, latency=30, tokens=100)  # cheap, slow, compact
QUICK = point("quick", 0.7, cost=3.0, latency=5, tokens=200)  # premium, fast, compact
BARGAIN = point("bargain", 0.5, cost=1.5, latency=6, tokens=300)  # cheap, fast, verbose
NAMES = {p.id: p.module.instructions for p in (ACCURATE, THRIFTY, QUICK, BARGAIN)}


@pytest.fixture
def grid() -> ModuleArchive:
    return ModuleArchive("sum", SIG, [ACCURATE, THRIFTY, QUICK, BARGAIN])


def chosen(grid: ModuleArchive, priority: str | None) -> str:
    return NAMES[select(grid, priority).point.id]


@pytest.mark.parametrize(
    ("priority", "expected"),
    [
        (None, "accurate"),
        ("best", "accurate"),
        ("cheap", "thrifty"),
        ("fast", "quick"),
        ("compact", "quick"),
        ("verbose", "accurate"),
        ("premium", "accurate"),
        ("slow compact", "thrifty"),
        ("cheap fast", "bargain"),
        ("Cheap, FAST", "bargain"),
        ("best cheap", "thrifty"),
    ],
)
def test_keywords_pick_the_best_elite_of_the_matching_bins(
    grid: ModuleArchive, priority: str | None, expected: str
) -> None:
    assert chosen(grid, priority) == expected


def test_a_keyword_choice_says_which_bins(grid: ModuleArchive) -> None:
    assert select(grid, "cheap fast").reason == "best elite among bins that are cheap and fast"
    assert select(grid, "best").reason == "best score"


def test_no_matching_elite_falls_back_to_the_best_score_and_says_so(grid: ModuleArchive) -> None:
    choice = select(grid, "premium fast verbose")
    assert choice.point.id == ACCURATE.id
    assert choice.reason == "no elite is premium and fast and verbose; took the best score"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("accurate, money is no object", [("accurate", "accuracy"), ("money is no object", "cost does not matter")]),
        ("quick and cheap", [("quick", "speed"), ("cheap", "low cost")]),
        ("detailed answers", [("detailed answers", "detail")]),
        ("short answers please", [("short answers please", "brevity")]),
        ("as fast as possible", [("as fast as possible", "speed")]),
        ("purple elephants dancing", []),
    ],
)
def test_intents_of_a_sentence(sentence: str, expected: list[tuple[str, str]]) -> None:
    found = selection.intents(sentence, LexicalEmbedder())
    assert [(clause, intent) for clause, intent, _ in found] == expected
    assert all(similarity >= 0.35 for _, _, similarity in found)


def test_accurate_money_is_no_object_picks_the_best_scoring_point(grid: ModuleArchive) -> None:
    choice = select(grid, "accurate, money is no object")
    assert choice.point.id == ACCURATE.id
    assert "'money is no object' → cost does not matter" in choice.reason


def test_quick_and_cheap_picks_the_cheap_fast_point(grid: ModuleArchive) -> None:
    assert chosen(grid, "quick and cheap") == "bargain"


def test_detailed_answers_picks_the_longest_good_point() -> None:
    concise = point("concise", 0.9, cost=0.0, latency=10, tokens=100)
    detailed = point("detailed", 0.8, cost=0.0, latency=10, tokens=600)
    pair = ModuleArchive("sum", SIG, [concise, detailed])
    assert select(pair, "detailed answers").point.id == detailed.id
    assert select(pair, "best").point.id == concise.id


def test_an_unrecognised_sentence_takes_the_best_score(grid: ModuleArchive) -> None:
    choice = select(grid, "purple elephants dancing")
    assert choice.point.id == ACCURATE.id
    assert choice.reason == "did not recognise 'purple elephants dancing'; took the best score"


def test_a_custom_embedder_is_used() -> None:
    class Constant:
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            return [[1.0, 0.0] for _ in texts]

    pair = ModuleArchive("sum", SIG, [ACCURATE, BARGAIN])
    assert select(pair, "whatever", embedder=Constant()).reason.startswith("nearest phenotype for 'whatever'")


def test_an_empty_archive_cannot_select() -> None:
    with pytest.raises(ValueError, match="empty"):
        select(ModuleArchive("sum", SIG), "fast")


def test_lexical_embedder_puts_word_forms_near_each_other() -> None:
    quick, quickly, cheap = LexicalEmbedder().embed(["quick", "quickly", "cheap"])
    assert cosine(quick, quickly) > 0.9
    assert cosine(quick, cheap) < 0.35


def test_lexical_embedder_vectors_are_normalised_and_empty_text_is_zero() -> None:
    vector, empty = LexicalEmbedder(dim=64).embed(["money is no object", "!!"])
    assert len(vector) == 64
    assert sum(v * v for v in vector) == pytest.approx(1.0)
    assert empty == [0.0] * 64
    assert cosine(vector, empty) == 0.0


def test_stop_words_do_not_make_a_sentence_match_an_intent() -> None:
    from chrysalis.evolve.selection import intents
    from chrysalis.llm.embeddings import LexicalEmbedder

    assert intents("the weather in Paris", LexicalEmbedder()) == []
