"""Mutation evidence: a line whose template edit makes failing tests pass is asked about first."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from chrysalis.llm.sampling import Sampler
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.repair import RepairConfig, Repairer
from chrysalis.repair.candidates import CandidateSource
from chrysalis.repair.evidence import LineEvidence
from chrysalis.repair.testrun import TestRun
from chrysalis.voting import VotingConfig
from tests.repair.conftest import STATS
from tests.repair.test_candidates import BFS, PROGRAM

PYTEST = "python -m pytest -q -p no:cacheprovider"
LINE_REPLY = json.dumps({"code": "dist = {}"})


def ran(*passed: str) -> TestRun:
    return TestRun("pytest", 1, "", passed=passed, failed=())


def test_a_line_keeps_the_largest_share_of_failing_tests_one_of_its_mutants_made_pass() -> None:
    evidence = LineEvidence(["t::a", "t::b", "t::c"])
    evidence.learn("g.py", 14, ran("t::a", "t::other"))  # a test that passed before does not count
    evidence.learn("g.py", 16, ran("t::a", "t::b"))
    evidence.learn("g.py", 16, ran())  # a later mutant of the line that fixes nothing keeps the best
    evidence.learn("g.py", None, ran("t::a", "t::b", "t::c"))  # a sample, not a template: no line
    assert (evidence.share("g.py", 14), evidence.share("g.py", 16), evidence.share("h.py", 16)) == (1 / 3, 2 / 3, 0)
    assert evidence.first("g.py", [13, 14, 15, 16]) == [16, 14, 13, 15]
    assert LineEvidence().first("g.py", [15, 13]) == [15, 13]  # no failing tests: no evidence, the order as given


def failing(*got: tuple[str, str]) -> str:
    """pytest's ``-rA --tb=short`` FAILURES section: each (test, got) failed ``assert got == 4``."""
    blocks = [
        f"____ {test} ____\ntest_g.py:3: in {test}\n    assert f() == 4\nE   assert {value} == 4" for test, value in got
    ]
    return "=== FAILURES ===\n" + "\n".join(blocks) + "\n=== short test summary info ==="


def test_where_no_mutant_makes_a_test_pass_a_line_whose_mutant_changes_a_failing_value_comes_first() -> None:
    evidence = LineEvidence(["t::a", "t::b"], failing(("test_a", "5"), ("test_b", "7")))
    evidence.learn("g.py", 13, TestRun("pytest", 1, failing(("test_a", "5"), ("test_b", "7"))))  # changes nothing
    evidence.learn("g.py", 14, TestRun("pytest", 1, failing(("test_a", "3"), ("test_b", "7"))))  # moves one value
    evidence.learn("g.py", 15, TestRun("pytest", 1, "", passed=("t::a",), failed=("t::b",)))  # one passes
    evidence.learn("g.py", 16, TestRun("pytest", 2, "SyntaxError"))  # a crash moves no value
    assert (evidence.moved("g.py", 13), evidence.moved("g.py", 14), evidence.moved("g.py", 16)) == (0, 1 / 2, 0)
    assert evidence.first("g.py", [13, 16, 14, 15]) == [15, 14, 13, 16]  # passing first, then moved, then as given


def asked_lines(tmp_path: Path, evidence: LineEvidence | None) -> list[str]:
    """The line each at-line sample of six draws was asked about (every third draw is a whole function)."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "g.py").write_text(PROGRAM)
    backend = ScriptedChatBackend([LINE_REPLY] * 6)
    source = CandidateSource(Sampler(backend), tmp_path, "failure")
    if evidence is not None:
        source.evidence = evidence
    for index in range(6):
        asyncio.run(source.draw(BFS, index))
    prompts = [call[-1].content for call in backend.calls]
    return [prompt.split("Line ", 1)[1].split(" ", 1)[0] for prompt in prompts if "\nIf this line is the bug" in prompt]


def test_the_model_is_asked_about_the_lines_with_evidence_first_then_in_the_spectrum_order(tmp_path: Path) -> None:
    assert asked_lines(tmp_path, None) == ["18", "17", "13"]  # the suspect's ranked lines, as before
    evidence = LineEvidence(["t::a"])
    evidence.learn("g.py", 15, ran("t::a"))
    assert asked_lines(tmp_path / "x", evidence) == ["15", "18", "17"]


def test_repair_learns_from_its_templates_which_line_to_ask_about(project: Path) -> None:
    # All tests of mean fail and run every line alike, so the spectrum ties; `7` → `1` makes one pass.
    (project / "stats.py").write_text(STATS.replace("return total / (len(values) + 1)", "return total / 7"))
    backend = ScriptedChatBackend([json.dumps({"line": 3, "code": "total = 0"})] * 6, supports_json_schema=True)
    config = RepairConfig(
        PYTEST, samples=2, max_samples=6, rounds=2, suspects=1, templates=40, voting=VotingConfig(n=1, k=2)
    )
    report = asyncio.run(Repairer(project, Sampler(backend, max_tokens=300), config).run())
    assert not report.success and report.rounds == 2
    at_line = [call[-1].content for call in backend.calls if "\nIf this line is the bug" in call[-1].content]
    assert at_line and "Line 6 is:\nreturn total / 7" in at_line[0]
