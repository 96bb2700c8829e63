"""``chrysalis council "TOPIC"`` as a user runs it, on a scripted OpenAI-compatible model.

The events (``--json``), who speaks when, what the model is asked (the topic, ``--diff``, ``--file``),
how its reply is shaped, bad input refused with exit 2 before any model call, a model failure (exit 1,
the turns before it kept), and the run afterwards: ``provenance verify``, ``show`` and ``queue``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from chrysalis.cli.app import main
from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import chrysalis, git, interrupted_run, scripted

PANEL = ["ada", "lea", "phil", "david"]
"""The built-in panel, in its order; with this topic and these replies only Ada and Phil want to speak."""
TYPES = {"council_gate", "council_arbiter", "council_turn", "council_end"}
TOPIC = "Should parse() keep its hand-written tokenizer?"
"""No persona's trigger word, no name: Ada and Phil interject, Lea and David wait."""
CHANGED_LINE = "    return a - b  # subtract, at last"


def reply(n: int) -> str:
    """The scripted model's n-th reply (from 1): markup, a label, two questions and six sentences to shape."""
    return (
        f"Reviewer said:\n## Point R{n}\n- Keep the tokenizer R{n} small.\n- Split the lexer out for R{n}.\n```\n"
        f"What about tests R{n}? And the docs R{n}? Fifth sentence R{n}. Sixth sentence R{n}."
    )


def shaped(n: int) -> str:
    """``reply(n)`` after Realize: no markup or label, one question, four sentences (the opener and idiom aside)."""
    return (
        f"Point R{n} Keep the tokenizer R{n} small. Split the lexer out for R{n}. "
        f"What about tests R{n}? Fifth sentence R{n}."
    )


class Model:
    """The scripted model: request n (from 1) gets ``reply(n)``, or from request ``fail_at`` on an HTTP 500."""

    def __init__(self, fail_at: int | None = None, replies: Sequence[ScriptedReply | str] = ()) -> None:
        self.calls = 0
        self.fail_at = fail_at
        self.replies = replies

    def __call__(self, body: dict[str, Any]) -> ScriptedReply | str:
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            return ScriptedReply.error(500, "the scripted model fell over")
        if self.calls <= len(self.replies):
            return self.replies[self.calls - 1]
        return reply(self.calls)


def prompt(request: dict[str, Any]) -> str:
    """Everything a chat request asked the model: its messages' text."""
    return "\n".join(str(message.get("content")) for message in request["messages"])


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``chrysalis ARGS`` in this process, through ``main`` (which turns a bare ``--diff`` into ``--diff=HEAD``)."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 1 if code else 0), out, err


def council(
    capsys: pytest.CaptureFixture[str], server: ScriptedOpenAIServer, workspace: Path, topic: str, *flags: str
) -> tuple[int, str, str]:
    """``chrysalis council TOPIC`` on ``server`` in ``workspace``, then ``flags`` (may end in a bare --diff)."""
    return cli(capsys, "council", topic, *scripted(server.base_url, "m"), "--workspace", str(workspace), *flags)


def json_lines(out: str) -> list[dict[str, Any]]:
    """``--json``'s stdout: one JSON object per line, every line."""
    events = [json.loads(line) for line in out.splitlines()]
    assert events and all(isinstance(event, dict) for event in events), out
    return events


def rounds(events: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]]:
    """The council round by round, (gates, arbiter, turns), checking the order: gates, the arbiter, its turns."""
    found: list[tuple[list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]] = []
    gates: list[dict[str, Any]] = []
    for event in events[:-1]:
        if event["type"] == "council_gate":
            gates.append(event)
        elif event["type"] == "council_arbiter":
            assert gates, f"an arbiter without gates before it: {events}"
            found.append((gates, event, []))
            gates = []
        else:
            assert event["type"] == "council_turn" and found and not gates, f"a turn out of place: {event}"
            found[-1][2].append(event)
    assert not gates, f"gates with no arbiter after them: {gates}"
    return found


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def without_run_id(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in event.items() if key != "run_id"} for event in events]


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The workspace as a git repository with one commit, and an uncommitted change to calc.py."""
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "calc")
    (workspace / "calc.py").write_text(f"def subtract(a, b):\n{CHANGED_LINE}\n")
    return workspace


# -- The events ----------------------------------------------------------------------------------------


def test_json_prints_each_round_gates_arbiter_and_the_winners_turns_with_the_models_shaped_replies(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "3", "--json")
    assert code == 0, out + err
    events = json_lines(out)
    assert {event["type"] for event in events} <= TYPES, events
    end = events[-1]
    assert end["type"] == "council_end" and [e for e in events if e["type"] == "council_end"] == [end]
    assert end["turns"] == 3 and isinstance(end["run_id"], str) and end["run_id"] and "error" not in end
    played = rounds(events)
    assert played, events
    for number, (gates, arbiter, turns) in enumerate(played, 1):
        assert [gate["persona"] for gate in gates] == PANEL, gates
        for gate in gates:
            assert isinstance(gate["should_speak"], bool) and is_number(gate["confidence"]), gate
            assert isinstance(gate["reason"], str) and gate["reason"], gate
        assert set(arbiter) == {"type", "round", "winners", "losers", "scores", "bonus"}, arbiter
        assert arbiter["round"] == number
        assert sorted(arbiter["winners"] + arbiter["losers"]) == sorted(PANEL), arbiter
        for table in (arbiter["scores"], arbiter["bonus"]):
            assert sorted(table) == sorted(PANEL) and all(map(is_number, table.values())), arbiter
        assert arbiter["winners"], arbiter  # Ada and Phil always want to speak: no round passes in silence
        best_first = [arbiter["scores"][name] for name in arbiter["winners"]]
        assert best_first == sorted(best_first, reverse=True), arbiter
        assert [turn["persona"] for turn in turns] == arbiter["winners"], (arbiter, turns)
    said = [event for event in events if event["type"] == "council_turn"]
    assert len(said) == 3 and len(server.requests) == 3
    for n, (turn, request) in enumerate(zip(said, server.requests, strict=True), 1):
        assert set(turn) == {"type", "persona", "text"}, turn
        assert f"Your turn, {turn['persona'].capitalize()}:" in prompt(request)
        assert TOPIC in prompt(request)
        text = turn["text"]
        assert shaped(n) in text, text
        for left_out in ("##", "```", "- Keep", "Reviewer said", f"And the docs R{n}", f"Sixth sentence R{n}"):
            assert left_out not in text, text


def test_personas_seats_only_the_named_panel(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--personas", "phil,ada", "--turns", "2", "--json")
    assert code == 0, out + err
    events = json_lines(out)
    assert events[-1]["type"] == "council_end" and events[-1]["turns"] == 2
    for gates, arbiter, turns in rounds(events):
        assert [gate["persona"] for gate in gates] == ["phil", "ada"]
        assert sorted(arbiter["scores"]) == ["ada", "phil"] and sorted(arbiter["winners"] + arbiter["losers"]) == [
            "ada",
            "phil",
        ]
        assert {turn["persona"] for turn in turns} <= {"ada", "phil"}
    assert {e["persona"] for e in events if e["type"] == "council_gate"} == {"ada", "phil"}
    assert len(server.requests) == 2


def test_max_speakers_caps_each_rounds_winners(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--max-speakers", "1", "--turns", "3", "--json")
    assert code == 0, out + err
    played = rounds(json_lines(out))
    assert [len(arbiter["winners"]) for _, arbiter, _ in played] == [1, 1, 1]


def test_without_json_it_says_who_wants_to_speak_who_gets_the_floor_and_the_turns(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "2")
    assert code == 0, out + err
    lines = out.splitlines()
    assert lines[0].startswith("round 1: wants to speak: ada (0.50: ") and "phil (0.50: " in lines[0], out
    assert lines[1].startswith("  floor to ada 0.") and ", phil 0." in lines[1], out
    assert lines[2].startswith("ada: ") and shaped(1) in lines[2], out
    assert lines[3].startswith("phil: ") and shaped(2) in lines[3], out
    assert lines[-1].startswith("2 turns · run ") and "(chrysalis show " in lines[-1], out


def test_a_turn_asks_at_most_one_question_opener_and_idiom_included(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    """Realize keeps one question of the reply; the opener or idiom it adds must not make it two."""
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "8", "--json")
    assert code == 0, out + err
    turns = [event for event in json_lines(out) if event["type"] == "council_turn"]
    assert len(turns) == 8
    asking_twice = [turn for turn in turns if turn["text"].count("?") > 1]
    assert asking_twice == [], asking_twice


def test_the_same_council_twice_says_the_same_words(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    held = []
    for _ in range(2):
        with ScriptedOpenAIServer(Model()) as server:
            code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "8", "--json")
        assert code == 0, out + err
        held.append(json_lines(out))
    first, second = held
    assert first[-1]["run_id"] != second[-1]["run_id"]
    assert without_run_id(first) == without_run_id(second)
    said = [event["text"] for event in first if event["type"] == "council_turn"]
    assert len(said) == 8 and all(not text.startswith("Point R") for text in said), said  # openers drawn


# -- Bad input: exit 2, before any model call --------------------------------------------------------


def refused(capsys: pytest.CaptureFixture[str], workspace: Path, topic: str, *flags: str) -> str:
    """``council TOPIC FLAGS --json``: exit 2, no model request, nothing on stdout, no traceback; its stderr."""
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, topic, "--json", *flags)
    assert code == 2, out + err
    assert server.requests == [], "a model was asked before the input was checked"
    assert out == "" and "Traceback" not in err, out + err
    return err


@pytest.mark.parametrize(
    ("topic", "flags", "said"),
    [
        pytest.param("", (), ["topic is empty"], id="empty-topic"),
        pytest.param("   ", (), ["topic is empty"], id="blank-topic"),
        pytest.param(TOPIC, ("--turns", "0"), ["--turns 0"], id="no-turns"),
        pytest.param(TOPIC, ("--max-speakers", "0"), ["--max-speakers 0"], id="no-speakers"),
        pytest.param(TOPIC, ("--personas", "nobody"), ["'nobody'", "ada, lea, phil, david"], id="unknown-persona"),
        pytest.param(TOPIC, ("--personas", "ada,nobody"), ["'nobody'", "ada, lea, phil, david"], id="one-unknown"),
        pytest.param(TOPIC, ("--file", "missing.txt"), ["--file missing.txt", "cannot read"], id="missing-file"),
    ],
)
def test_bad_input_exits_2_naming_it_before_any_model_call(
    capsys: pytest.CaptureFixture[str], workspace: Path, topic: str, flags: tuple[str, ...], said: list[str]
) -> None:
    err = refused(capsys, workspace, topic, *flags)
    for needle in said:
        assert needle in err, err


def test_a_ref_git_does_not_know_exits_2_naming_it(capsys: pytest.CaptureFixture[str], repo: Path) -> None:
    err = refused(capsys, repo, TOPIC, "--diff", "not-a-ref")
    assert "--diff not-a-ref" in err and "bad revision 'not-a-ref'" in err, err


def test_a_ref_that_is_a_git_option_exits_2_and_git_writes_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    """``--diff=--output=FILE`` is no ref: git must not take it as an option (and write FILE)."""
    written = tmp_path / "written-by-git.txt"
    err = refused(capsys, repo, TOPIC, f"--diff=--output={written}")
    assert not written.exists(), "git diff took the REF as its --output option and wrote the file"
    assert "--output" in err, err


def test_diff_outside_a_git_repository_exits_2_saying_so(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LC_ALL", "C")  # git's own words, untranslated
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(workspace.parent))  # no repository above the workspace
    err = refused(capsys, workspace, TOPIC, "--diff", "HEAD")
    assert "--diff HEAD" in err and "not a git repository" in err.lower(), err


def test_a_malformed_persona_file_exits_2_naming_the_file_and_the_key(
    capsys: pytest.CaptureFixture[str], workspace: Path, chrysalis_home: Path
) -> None:
    folder = chrysalis_home / "personas"
    folder.mkdir()
    bad = folder / "bad.toml"
    bad.write_text('priority = 0.4\nmode = "can_interject"\nprompt = "You review."\nloudness = 11\n')
    err = refused(capsys, workspace, TOPIC)
    assert str(bad) in err and "'loudness'" in err, err


# -- What the model reads: the diff, the files -------------------------------------------------------


def test_a_bare_diff_at_the_end_puts_the_uncommitted_change_in_the_request(repo: Path) -> None:
    """Through ``python -m chrysalis``: a bare ``--diff`` is ``--diff=HEAD``, the working tree against HEAD."""
    with ScriptedOpenAIServer(Model()) as server:
        done = chrysalis(
            "council", TOPIC, *scripted(server.base_url, "m"), "--turns", "1", "--json", "--diff", cwd=repo
        )
    assert done.returncode == 0, done.stdout + done.stderr
    end = json_lines(done.stdout)[-1]
    assert end["type"] == "council_end" and end["turns"] == 1 and "error" not in end, end
    (request,) = server.requests
    asked = prompt(request)
    assert "+" + CHANGED_LINE in asked and "-    return a + b" in asked, asked


def test_a_bare_diff_before_another_option_is_the_diff_against_head(
    capsys: pytest.CaptureFixture[str], repo: Path
) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, repo, TOPIC, "--diff", "--turns", "1", "--json")
    assert code == 0, out + err
    (request,) = server.requests
    assert "+" + CHANGED_LINE in prompt(request)


def test_files_are_read_into_every_request(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    (workspace / "notes.txt").write_text("Ship the tokenizer behind the NOTES-MARKER-42 flag.\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "plan.md").write_text("Step one: PLAN-MARKER-7.\n")
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(
            capsys, server, workspace, TOPIC, "--file", "notes.txt", "--file", "docs/plan.md", "--turns", "2"
        )
    assert code == 0, out + err
    assert len(server.requests) == 2
    for request in server.requests:
        asked = prompt(request)
        assert "NOTES-MARKER-42" in asked and "PLAN-MARKER-7" in asked, asked


# -- A model failure ---------------------------------------------------------------------------------


def test_a_model_failure_after_the_first_turn_exits_1_in_one_line_and_keeps_the_turn(
    capsys: pytest.CaptureFixture[str], workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's width: the line must not be wrapped into several
    with ScriptedOpenAIServer(Model(fail_at=2)) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--json")
    assert code == 1, out + err
    events = json_lines(out)
    end = events[-1]
    assert end["type"] == "council_end" and end["turns"] == 1, end
    assert isinstance(end.get("error"), str) and "500" in end["error"], end
    (turn,) = [event for event in events if event["type"] == "council_turn"]
    assert shaped(1) in turn["text"]
    assert "Traceback" not in err and "council stopped" in err and "500" in err, err
    stderr = err

    run = end["run_id"]
    code, out, err = cli(capsys, "provenance", "verify", run, "--json")
    assert code == 0, out + err
    assert json.loads(out) == {"run_id": run, "ok": True, "verified": len(events), "first_bad": None}
    code, out, err = cli(capsys, "provenance", "verify", run)
    assert code == 0 and f"{len(events)} council records verified" in out, out + err
    code, out, err = cli(capsys, "show", run)
    assert code == 0, out + err
    assert f"{turn['persona']}: {turn['text']}" in out.splitlines(), out
    assert f"run {run}: failed" in out, out
    assert len(stderr.strip().splitlines()) == 1, f"not one line on stderr:\n{stderr}"  # last: the record is kept


def test_a_model_nobody_answers_exits_1_with_no_turns_and_a_verifiable_record(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    code, out, err = cli(
        capsys, "council", TOPIC, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--workspace", str(workspace)
    )
    assert code == 1, out + err
    assert "Traceback" not in out + err and "council stopped" in err, err
    run = out.strip().splitlines()[-1].split("run ")[1].split()[0]
    code, out, err = cli(capsys, "provenance", "verify", run, "--json")
    assert code == 0 and json.loads(out)["ok"] is True, out + err
    code, out, err = cli(capsys, "show", run, "--json")
    assert code == 0 and json.loads(out.splitlines()[-1])["status"] == "failed", out + err


def test_ctrl_c_during_a_turn_exits_130_ends_the_council_as_interrupted_and_keeps_the_turns(
    workspace: Path, chrysalis_home: Path
) -> None:
    script = Model(replies=[reply(1), ScriptedReply(text=reply(2), held=True)])  # phil's turn stays in flight
    with ScriptedOpenAIServer(script) as server:
        args = ["council", TOPIC, *scripted(server.base_url, "m"), "--workspace", str(workspace), "--json"]
        reached, done = interrupted_run(args, server, after_requests=2, home=chrysalis_home)
    assert reached, done.stdout + done.stderr
    assert done.returncode == 130 and "Traceback" not in done.stderr, done.stdout + done.stderr
    events = json_lines(done.stdout)
    end = events[-1]
    assert end["type"] == "council_end" and end["turns"] == 1 and end["error"] == "interrupted", end
    run = end["run_id"]
    verified = chrysalis("provenance", "verify", run, "--json")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout) == {"run_id": run, "ok": True, "verified": len(events), "first_bad": None}
    shown = chrysalis("show", run, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout.splitlines()[-1])["status"] == "cancelled", shown.stdout


# -- The run afterwards -----------------------------------------------------------------------------


def test_a_council_is_a_done_run_whose_records_verify_and_show_lists(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    with ScriptedOpenAIServer(Model()) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "4", "--json")
    assert code == 0, out + err
    events = json_lines(out)
    run = events[-1]["run_id"]
    turns = [event for event in events if event["type"] == "council_turn"]
    first_round = next(event for event in events if event["type"] == "council_arbiter")

    code, out, err = cli(capsys, "provenance", "verify", run, "--json")
    assert code == 0, out + err
    assert json.loads(out) == {"run_id": run, "ok": True, "verified": len(events), "first_bad": None}

    code, out, err = cli(capsys, "show", run)
    assert code == 0, out + err
    lines = out.splitlines()
    for turn in turns:
        assert f"{turn['persona']}: {turn['text']}" in lines, out
    assert f"round 1: floor to {', '.join(first_round['winners'])}" in lines, out
    assert "council ended after 4 turns" in lines, out
    assert f"run {run}: done" in lines, out

    code, out, err = cli(capsys, "queue", "--json")
    assert code == 0, out + err
    (listed,) = [record for record in json.loads(out) if record["id"] == run]
    assert listed["status"] == "done" and listed["task"] == TOPIC and listed["error"] is None
    code, out, err = cli(capsys, "show", run, "--json")
    assert code == 0, out + err
    shown = [json.loads(line) for line in out.splitlines()]
    assert shown[-1]["type"] == "run" and shown[-1]["id"] == run and shown[-1]["status"] == "done"
    assert [event["record"]["type"] for event in shown[:-1]] == [event["type"] for event in events]


def test_show_prints_a_turn_with_brackets_as_the_council_said_it(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    """A review quotes code: ``list[int]``, ``[/]`` are text to ``show``, not Rich markup to apply or choke on."""
    replies = ["Type the tokens as list[int] in parse().", "Close the span with [/] in lexer.py."]
    with ScriptedOpenAIServer(Model(replies=replies)) as server:
        code, out, err = council(capsys, server, workspace, TOPIC, "--turns", "2", "--json")
    assert code == 0, out + err
    events = json_lines(out)
    turns = [event for event in events if event["type"] == "council_turn"]
    assert "list[int]" in turns[0]["text"] and "[/]" in turns[1]["text"], turns
    code, out, err = cli(capsys, "show", events[-1]["run_id"])
    assert code == 0 and "Traceback" not in err, out + err
    for turn in turns:
        assert f"{turn['persona']}: {turn['text']}" in out.splitlines(), out
