"""Generate-and-validate repair end to end with a scripted model: isolation, timeouts, rounds, the vote, apply."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from chrysalis.events import Event, RepairEnd, RepairRound
from chrysalis.llm.backend import ChatMessage, Completion
from chrysalis.llm.sampling import Sampler
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.repair import RepairConfig, Repairer, engine
from chrysalis.repair.candidates import Candidate
from chrysalis.stores import Stores
from chrysalis.voting import VotingConfig
from tests.repair.conftest import FIXED_LINE, STATS

PYTEST = "python -m pytest -q -p no:cacheprovider"
RIGHT = json.dumps({"line": 6, "code": "return total / len(values)"})
OFF_BY_ONE_NUMBER = json.dumps({"line": 5, "code": "return total / len(values)"})  # small models miscount lines
WRONG = json.dumps({"line": 6, "code": "return total / (len(values) + 2)"})
LOOPS = json.dumps({"code": "def mean(values):\n    while True:\n        pass"})
WRITES = json.dumps(
    {"code": "def mean(values):\n    open('planted.txt', 'w').write('x')\n    return sum(values) / len(values)"}
)
SPECIAL = json.dumps(
    {
        "code": "def mean(values):\n    if values == [5]:\n        return 5\n"
        "    if values == [2, 4, 6]:\n        return 4\n    return 0"
    }
)


def repairer(project: Path, replies: list[str], events: list[Event], **config: object) -> Repairer:
    backend = ScriptedChatBackend(replies, supports_json_schema=True)
    settings = {
        "samples": 2,
        "max_samples": 8,
        "voting": VotingConfig(n=1, k=2),
        "test_timeout": 30.0,
        "suspects": 1,
        "templates": 0,  # the model's candidates alone, unless a test asks for templates
    } | config
    return Repairer(
        project,
        Sampler(backend, max_tokens=300),
        RepairConfig(PYTEST, **settings),  # type: ignore[arg-type]
        emit=events.append,
    )


def test_repair_applies_the_voted_one_line_fix(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [RIGHT, WRONG, OFF_BY_ONE_NUMBER], events, samples=3).run())
    assert report.success and report.applied and report.votes == 2 and report.consensus
    assert (project / "stats.py").read_text() == STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE)
    end = events[-1]
    assert isinstance(end, RepairEnd) and end.success and end.path == "stats.py"
    assert [line for line in end.diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        "-    return total / (len(values) + 1)",
        "+" + FIXED_LINE.rstrip("\n"),
    ]
    (round_one,) = [e for e in events if isinstance(e, RepairRound)]
    assert round_one.samples == 3 and round_one.passed == 2 and round_one.suspects[0]["function"] == "mean"


def test_candidates_run_in_copies_and_their_writes_never_reach_the_workspace(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [RIGHT, WRITES], events, voting=VotingConfig(n=1, k=1)).run(apply=False))
    assert report.success and not report.applied and report.passed >= 1
    assert not (project / "planted.txt").exists() and (project / "stats.py").read_text() == STATS


def test_a_candidate_that_loops_forever_is_stopped_by_the_timeout_and_fails(project: Path) -> None:
    events: list[Event] = []
    # Not a short test_timeout: on a busy machine the right candidate's own run may outlast one. The
    # looping one is stopped at the run limit (ten times the buggy run, MIN_TEST_SECONDS at least).
    report = asyncio.run(
        repairer(project, [WRONG, LOOPS, RIGHT, RIGHT], events, test_timeout=60.0, voting=VotingConfig(n=1, k=1)).run()
    )
    assert report.success and report.winner is not None and report.winner.reply == RIGHT


def test_a_candidate_run_may_take_only_so_many_times_the_buggy_run(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "SLOWER_THAN_BUGGY", 0.0)  # whatever the buggy run took: the minimum
    monkeypatch.setattr(engine, "MIN_TEST_SECONDS", 10.0)  # far above a passing run's time on a busy machine
    fixer = repairer(project, [WRONG, LOOPS, RIGHT], [], samples=3, test_timeout=600.0, voting=VotingConfig(n=1, k=1))
    report = asyncio.run(fixer.run())
    assert fixer.run_limit == 10.0  # not test_timeout's 600 s: the looping candidate was stopped after 10 s
    assert report.success and report.winner is not None and report.winner.reply == RIGHT


def test_when_nothing_passes_a_second_round_draws_more_with_the_failures_as_feedback(project: Path) -> None:
    events: list[Event] = []
    backend_replies = [WRONG, SPECIAL, RIGHT, RIGHT, RIGHT, RIGHT]
    rep = repairer(project, backend_replies, events, samples=2, max_samples=6)
    report = asyncio.run(rep.run())
    rounds = [e for e in events if isinstance(e, RepairRound)]
    assert [r.round for r in rounds] == [1, 2] and rounds[0].passed == 0
    assert rounds[0].flagged == {"special_cases_inputs": 1}
    assert report.success and report.rounds == 2
    backend = rep.sampler.backend
    assert isinstance(backend, ScriptedChatBackend)
    second_round_prompt = backend.calls[2][-1].content
    assert "This change was tried and the tests still fail" in second_round_prompt
    assert "(len(values) + 2)" in second_round_prompt


def test_no_candidate_passing_is_a_clear_failure_that_changes_nothing(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [WRONG] * 6, events, samples=2, max_samples=4).run())
    assert not report.success and report.problem == "no candidate passed the tests (4 drawn)"
    assert (project / "stats.py").read_text() == STATS


def test_templates_find_a_one_token_fix_the_model_misses_and_cost_no_tokens(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [WRONG] * 4, events, samples=2, templates=40).run())
    assert report.success and report.applied and report.winner is not None and report.winner.form == "template"
    assert report.winner.reply == "drop `+ 1`" and report.samples == 2 and report.templates > 0
    assert (project / "stats.py").read_text() == STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE)
    (round_one,) = [e for e in events if isinstance(e, RepairRound)]
    assert round_one.templates == report.templates and round_one.samples == 2
    end = events[-1]
    assert isinstance(end, RepairEnd) and end.templates == report.templates and end.tokens == report.tokens


def test_the_unified_diff_form_when_asked_for_applies_a_hunk(project: Path) -> None:
    hunk = json.dumps(
        {
            "diff": "@@ -5,2 +5,2 @@\n         total += v\n-    return total / (len(values) + 1)\n"
            "+    return total / len(values)"
        }
    )
    events: list[Event] = []
    report = asyncio.run(repairer(project, [hunk, hunk], events, forms=("diff",)).run())
    assert report.success and report.winner is not None and report.winner.form == "diff" and report.votes == 2
    assert (project / "stats.py").read_text() == STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE)


def _validated_replies(fixer: Repairer) -> list[str]:
    """The replies of the candidates ``fixer`` runs the tests of, in the order it starts them."""
    validated: list[str] = []
    validate = fixer._validate

    def counting(candidate: Candidate, failed: tuple[str, ...]) -> object:
        validated.append(candidate.reply)
        return validate(candidate, failed)

    fixer._validate = counting  # type: ignore[method-assign,assignment]
    return validated


def test_once_the_vote_is_decided_the_test_runs_that_could_not_change_it_are_cancelled(project: Path) -> None:
    # the wrong count comes first, so most of the templates (for the lines after it) are queued behind its fix
    (project / "stats.py").write_text(
        STATS.replace("    total = 0\n", "    count = len(values) + 1\n    total = 0\n").replace(
            "return total / (len(values) + 1)", "return total / count"
        )
    )
    right = json.dumps({"line": 3, "code": "count = len(values)"})
    fixer = repairer(project, [right, right], [], samples=2, templates=40, concurrency=1)
    validated = _validated_replies(fixer)
    report = asyncio.run(fixer.run())
    # the first sample writes the program of the template that drops ``+ 1``: two votes, decided (k=2); the
    # templates still queued, one vote each at most, cannot win, and their test runs never happen
    assert report.success and report.votes == 2 and report.winner is not None and report.winner.form == "template"
    assert report.winner.reply == "drop `+ 1`" and report.samples == 1
    assert "drop `+ 1`" in validated and len(validated) < report.templates / 2, (validated, report.templates)
    assert "    count = len(values)\n" in (project / "stats.py").read_text()


def test_the_test_run_the_vote_waits_for_goes_before_the_templates_queued_ahead_of_it(project: Path) -> None:
    # the one-token fix is one of the last templates of ``mean``; the first sample agrees with it (k=2)
    fixer = repairer(project, [RIGHT, RIGHT], [], samples=2, templates=40, concurrency=1)
    validated = _validated_replies(fixer)
    report = asyncio.run(fixer.run())
    assert report.success and report.votes == 2 and report.winner is not None and report.winner.form == "template"
    assert report.winner.reply == "drop `+ 1`" and report.samples == 1
    # at most the template that had started runs before it; the rest, queued ahead of it, never run
    assert validated.index("drop `+ 1`") <= 1 and len(validated) < report.templates / 2, (validated, report.templates)
    assert (project / "stats.py").read_text() == STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE)


def test_a_failure_counts_the_templates_tried(project: Path) -> None:
    (project / "stats.py").write_text(STATS.replace("return total / (len(values) + 1)", "return total / 7"))
    report = asyncio.run(repairer(project, [WRONG] * 4, [], samples=2, max_samples=2, rounds=1, templates=5).run())
    assert report.problem == "no candidate passed the tests (2 drawn, 5 templates tried)"


def test_a_spent_time_limit_draws_no_more_candidates_and_says_so(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [RIGHT] * 4, events, time_limit=0.0).run())
    assert not report.success and report.samples == 0
    assert report.problem == "no candidate passed the tests (0 drawn before the time limit)"
    assert (project / "stats.py").read_text() == STATS


def test_a_spent_budget_draws_no_more_samples_and_says_so(project: Path) -> None:
    events: list[Event] = []
    fixer = repairer(project, [WRONG] * 8, events, samples=4, budget=0.25)
    fixer.price = lambda tokens_in, tokens_out: 0.1  # each sample costs 10 cents
    report = asyncio.run(fixer.run())
    assert not report.success and report.samples == 3 and report.cost == pytest.approx(0.3)
    assert report.problem == "no candidate passed the tests (3 drawn before the budget)"
    end = events[-1]
    assert isinstance(end, RepairEnd) and end.cost_usd == pytest.approx(0.3)


def test_passing_tests_need_no_repair(project: Path) -> None:
    (project / "stats.py").write_text(STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE))
    report = asyncio.run(repairer(project, [], []).run())
    assert not report.success and report.samples == 0 and "already pass" in str(report.problem)


def test_an_applied_patch_is_checkpointed_and_undo_restores_it(project: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        backend = ScriptedChatBackend([RIGHT, RIGHT], supports_json_schema=True)
        config = RepairConfig(PYTEST, samples=2, voting=VotingConfig(n=1, k=2))
        report = asyncio.run(
            Repairer(project, Sampler(backend), config, checkpoints=stores.checkpoints, run_id="fix1").run()
        )
        assert report.applied and FIXED_LINE in (project / "stats.py").read_text()
        stores.checkpoints.undo(project, "fix1")
    assert (project / "stats.py").read_text() == STATS


@pytest.mark.parametrize("k", [1, 2])
def test_sampling_stops_once_k_passing_candidates_agree(project: Path, k: int) -> None:
    events: list[Event] = []
    report = asyncio.run(repairer(project, [RIGHT] * 8, events, samples=8, voting=VotingConfig(n=1, k=k)).run())
    assert report.success and report.samples < 8  # it did not draw the whole round


TWO_CHANGES = json.dumps(
    {
        "code": "def mean(values):\n    total = 0.0\n    for v in values:\n        total += v\n"
        "    return total / len(values)"
    }
)
"""The fix and a change it does not need (``0.0`` for ``0``): the tests pass with or without the second."""


def test_a_winner_with_a_change_it_does_not_need_is_narrowed_to_the_fix(project: Path) -> None:
    events: list[Event] = []
    report = asyncio.run(
        repairer(project, [TWO_CHANGES], events, samples=1, voting=VotingConfig(n=1, k=1), forms=("function",)).run()
    )
    assert report.success and report.winner is not None and report.winner.form == "function"
    assert report.winner.reply == "change 2 of 2 of candidate #0, alone"
    assert (project / "stats.py").read_text() == STATS.replace("    return total / (len(values) + 1)\n", FIXED_LINE)
    assert report.passed == 2  # the whole function and its second change alone; the first alone fails


def test_a_winner_that_needs_all_its_changes_stays_whole(project: Path) -> None:
    (project / "stats.py").write_text(STATS.replace("    total = 0\n", "    total = 1\n"))  # a second bug
    events: list[Event] = []
    fixer = repairer(project, [TWO_CHANGES], events, samples=1, voting=VotingConfig(n=1, k=1), forms=("function",))
    report = asyncio.run(fixer.run())
    assert report.success and report.winner is not None and report.winner.reply == TWO_CHANGES
    assert report.passed == 1
    assert "    total = 0.0\n" in (project / "stats.py").read_text()


def test_no_sample_is_drawn_that_would_end_after_the_time_limit(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class SlowClock:
        """Each sample seems to take 1000 s (``Candidate.seconds``); the engine's clock is the real one."""

        now = 0.0

        def perf_counter(self) -> float:
            self.now += 1000.0
            return self.now

    monkeypatch.setattr("chrysalis.repair.candidates.time", SlowClock())
    report = asyncio.run(repairer(project, [WRONG] * 8, [], samples=4, time_limit=600.0).run())
    assert report.samples == 1 and report.problem == "no candidate passed the tests (1 drawn before the time limit)"


def test_a_sample_in_flight_when_the_time_limit_runs_out_is_stopped(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Clock:
        """The engine's clock: the repair starts at 0, and from then on 50 ms of its 600 s are left."""

        calls = 0

        def perf_counter(self) -> float:
            self.calls += 1
            return 0.0 if self.calls == 1 else 599.95

    class Stuck(ScriptedChatBackend):
        """A model that never answers: only the time limit ends its sample."""

        stopped = False

        async def complete(self, messages: list[ChatMessage], **_options: object) -> Completion:
            try:  # never set: without the time limit's stop this fails after 60 s instead of hanging the suite
                await asyncio.wait_for(asyncio.Event().wait(), 60)
            except asyncio.CancelledError:
                self.stopped = True
                raise
            raise AssertionError("the time limit did not stop the sample in flight")

    monkeypatch.setattr("chrysalis.repair.engine.time", Clock())
    backend = Stuck([], supports_json_schema=True)
    config = RepairConfig(
        PYTEST, samples=2, max_samples=8, voting=VotingConfig(n=1, k=2), suspects=1, templates=0, time_limit=600.0
    )
    report = asyncio.run(Repairer(project, Sampler(backend, max_tokens=300), config).run())
    assert backend.stopped
    assert report.samples == 0 and report.problem == "no candidate passed the tests (0 drawn before the time limit)"


def test_no_test_run_starts_once_the_time_limit_is_spent(project: Path) -> None:
    fixer = repairer(project, [], [])
    candidate = asyncio.run(repairer(project, [RIGHT], [], samples=1, voting=VotingConfig(n=1, k=1)).run(apply=False))
    assert candidate.winner is not None
    fixer._deadline = 0.0  # long gone
    verdict = asyncio.run(fixer._gated(candidate.winner, ()))
    assert not verdict.passed and verdict.run.output == "not run: the time limit was spent"
