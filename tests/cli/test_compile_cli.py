"""`chrysalis compile` and `chrysalis archive show` as a user runs them, against a scripted model server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply
from tests.helpers import assert_clean_error, chrysalis

PROGRAM = '''
import chrysalis as cf


class Add(cf.Signature):
    """Add the two numbers."""

    question: str = cf.InputField()
    answer: int = cf.OutputField(desc="just the number")


add = cf.Predict(Add)
shorthand = "question -> answer: int"
not_a_module = 42


def metric(example, prediction):
    return float(example["answer"] == prediction["answer"])


def broken(example, prediction):
    raise ZeroDivisionError("metric bug")
'''


def adder(body: dict[str, Any]) -> ScriptedReply:
    """Answers right when the system prompt has demos, one too many otherwise."""
    system = next(m["content"] for m in body["messages"] if m["role"] == "system")
    user = body["messages"][-1]["content"]
    found = re.search(r"(\d+) \+ (\d+)", user)
    if found is None:  # the meta model, asked for new instructions
        return ScriptedReply.tool_call("final_result", {"new_instructions": "Add the two numbers exactly."})
    total = int(found.group(1)) + int(found.group(2))
    return ScriptedReply.tool_call("final_result", {"answer": total if "Example 1" in system else total + 1})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "qa.py").write_text(PROGRAM)
    rows = [{"question": f"{a} + {a + 7}", "answer": 2 * a + 7} for a in range(1, 9)]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return tmp_path


def compile_with_server(project: Path, *args: str) -> Any:
    with ScriptedOpenAIServer(adder, max_requests=500) as server:
        return chrysalis(
            "compile",
            "qa.py:add",
            "--train",
            "train.jsonl",
            "--model",
            "fake",
            "--base-url",
            server.base_url,
            "--iterations",
            "1",
            "--children",
            "2",
            *args,
            cwd=project,
        )


def test_compile_saves_an_archive_that_archive_show_prints(project: Path) -> None:
    done = compile_with_server(project, "--metric", "custom", "--name", "adder")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "saved as archive 'adder' version 1" in done.stdout
    assert "cheap fast" in done.stdout
    shown = chrysalis("archive", "show", "adder", "--png", "grid.png", cwd=project)
    assert shown.returncode == 0, shown.stderr
    assert "adder v1" in shown.stdout and "points" in shown.stdout
    assert (project / "grid.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    listed = chrysalis("archive", "show", cwd=project)
    assert "adder  (version 1)" in listed.stdout


def test_compile_of_a_shorthand_string_with_the_exact_metric(project: Path) -> None:
    with ScriptedOpenAIServer(adder, max_requests=500) as server:
        done = chrysalis(
            "compile",
            "qa.py:shorthand",
            "--train",
            "train.jsonl",
            "--model",
            "fake",
            "--base-url",
            server.base_url,
            "--iterations",
            "0",
            "--rollouts",
            "40",
            cwd=project,
        )
    assert done.returncode == 0, done.stderr
    assert "saved as archive 'Shorthand'" in done.stdout


def test_archive_show_with_no_archives_says_how_to_make_one(project: Path) -> None:
    done = chrysalis("archive", "show", cwd=project)
    assert done.returncode == 0 and "chrysalis compile" in done.stdout


def test_archive_show_of_an_unknown_name_exits_2(project: Path) -> None:
    assert_clean_error(chrysalis("archive", "show", "nope", cwd=project), 2, "no archive 'nope'")


@pytest.mark.parametrize(
    ("target", "needle"),
    [
        ("qa.py", "must look like FILE.py:NAME"),
        ("missing.py:add", "does not exist"),
        ("qa.py:nothing", "'nothing' in qa.py is not defined; modules and signatures there: ['Add', 'add']"),
        ("qa.py:not_a_module", "is a int, not a Module or Signature"),
    ],
)
def test_bad_compile_targets_exit_2(project: Path, target: str, needle: str) -> None:
    done = chrysalis("compile", target, "--train", "train.jsonl", cwd=project)
    assert_clean_error(done, 2, needle)


def test_a_target_file_that_fails_to_import_exits_2(project: Path) -> None:
    (project / "bad.py").write_text("raise RuntimeError('boom')\n")
    done = chrysalis("compile", "bad.py:x", "--train", "train.jsonl", cwd=project)
    assert_clean_error(done, 2, "importing bad.py failed: RuntimeError: boom")


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"question": "1 + 2", "answer": 3}\nnot json\n', "train.jsonl:2: not valid JSON"),
        ("[1, 2]\n", "train.jsonl:1: a list, not a JSON object"),
        ("", "trainset is empty"),
        ('{"question": "1 + 2"}\n', "trainset[0] lacks the field(s) ['answer']"),
    ],
)
def test_bad_train_files_exit_2(project: Path, content: str, needle: str) -> None:
    (project / "train.jsonl").write_text(content)
    done = chrysalis("compile", "qa.py:add", "--train", "train.jsonl", cwd=project)
    assert_clean_error(done, 2, needle)


def test_a_missing_train_file_exits_2(project: Path) -> None:
    done = chrysalis("compile", "qa.py:add", "--train", "nope.jsonl", cwd=project)
    assert_clean_error(done, 2, "--train file 'nope.jsonl' does not exist")


@pytest.mark.parametrize(
    ("metric", "needle"),
    [
        ("accuracy", "--metric 'accuracy' is unknown; use exact, f1, json, custom or custom:FUNC"),
        ("custom:nothing", "needs a function nothing(example, prediction) -> float in qa.py"),
    ],
)
def test_bad_metrics_exit_2(project: Path, metric: str, needle: str) -> None:
    done = chrysalis("compile", "qa.py:add", "--train", "train.jsonl", "--metric", metric, cwd=project)
    assert_clean_error(done, 2, needle)


def test_a_metric_that_raises_exits_2_naming_it(project: Path) -> None:
    done = compile_with_server(project, "--metric", "custom:broken")
    assert_clean_error(done, 2, "The metric 'custom:broken' raised ZeroDivisionError: metric bug on dev example 0")


@pytest.mark.parametrize(
    ("option", "needle"),
    [
        (["--minibatch", "-1"], "--minibatch must be 0 or more, got -1."),
        (["--k-demos", "-1"], "--k-demos must be 0 or more, got -1."),
        (["--budget", "0"], "--budget must be a number of USD above 0, got 0.0."),
        (["--rollouts", "1"], "--rollouts must be at least 4 to evaluate the base module once on the 4 dev examples"),
    ],
)
def test_bad_compile_options_exit_2_before_any_model_call(project: Path, option: list[str], needle: str) -> None:
    done = chrysalis("compile", "qa.py:add", "--train", "train.jsonl", *option, cwd=project)
    assert_clean_error(done, 2, needle)
