"""The benchmark's task sets: big enough, reproducible, split cleanly, free of leaks, and true."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import BENCH, load_bench_module

ct = load_bench_module("compile_tasks")
SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module", params=ct.NAMES)
def task(request: pytest.FixtureRequest) -> Any:
    return ct.load(request.param)


def _examples(task: Any) -> list[dict[str, Any]]:
    return [*task.train, *task.dev, *task.test]


def _content(task: Any, example: dict[str, Any]) -> tuple[str, ...]:
    return tuple(example[name] for name in task.input_fields)


def _digest(task: Any) -> str:
    data = {split: getattr(task, split) for split in SPLITS}
    data["meta"] = [task.instructions, task.labels, task.input_fields, task.output_field]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def test_each_set_has_at_least_300_examples_and_100_per_split(task: Any) -> None:
    assert len(_examples(task)) >= 300
    assert min(task.sizes().values()) >= 100
    assert task.sizes() == {split: len(getattr(task, split)) for split in SPLITS}


def test_splits_are_disjoint_by_id_and_by_content(task: Any) -> None:
    ids = [ex["id"] for ex in _examples(task)]
    assert len(ids) == len(set(ids))
    contents = {split: {_content(task, ex) for ex in getattr(task, split)} for split in SPLITS}
    assert sum(len(c) for c in contents.values()) == len(ids)  # no duplicate inside a split either
    assert not contents["train"] & contents["dev"]
    assert not contents["train"] & contents["test"]
    assert not contents["dev"] & contents["test"]


def test_examples_are_plain_json_with_the_declared_fields(task: Any) -> None:
    for ex in _examples(task):
        assert json.loads(json.dumps(ex)) == ex
        assert all(isinstance(ex[name], str) and ex[name] for name in (*task.input_fields, task.output_field))
    assert "PSF" in task.licence and "Python standard library" in task.source


def test_two_calls_give_the_same_data(task: Any) -> None:
    assert _digest(ct.load(task.name)) == _digest(task)


def test_another_seed_gives_other_data(task: Any) -> None:
    assert _digest(ct.load(task.name, seed=1)) != _digest(task)


def test_same_data_in_fresh_processes_with_other_hash_seeds() -> None:
    script = (
        "import hashlib, importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('compile_tasks', {str(BENCH / 'compile_tasks.py')!r})\n"
        "ct = importlib.util.module_from_spec(spec); sys.modules['compile_tasks'] = ct; spec.loader.exec_module(ct)\n"
        "for name in ct.NAMES:\n"
        "    t = ct.load(name)\n"
        "    data = {s: getattr(t, s) for s in ('train', 'dev', 'test')}\n"
        "    data['meta'] = [t.instructions, t.labels, t.input_fields, t.output_field]\n"
        "    print(hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest())\n"
    )
    expected = [_digest(ct.load(name)) for name in ct.NAMES]
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.split() == expected, f"data differs under PYTHONHASHSEED={hash_seed}"


def test_subset_is_a_seeded_sample_and_zero_means_all() -> None:
    rows = ct.load("stdlib_exec").test
    sample = ct.subset(rows, 10, seed=3)
    assert len(sample) == 10 and sample == ct.subset(rows, 10, seed=3)
    assert sample != ct.subset(rows, 10, seed=4) and all(row in rows for row in sample)
    assert ct.subset(rows, 0, seed=3) == rows == ct.subset(rows, 10_000, seed=3)


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="stdlib_docstrings, stdlib_exec"):
        ct.load("nope")


# --- stdlib_docstrings ------------------------------------------------------------------------


def test_no_module_name_appears_in_any_docstring() -> None:
    task = ct.load("stdlib_docstrings")
    labels = re.compile(r"\b(" + "|".join((*task.labels, *ct.GIVEAWAYS)) + r")\b", re.IGNORECASE)
    leaks = [ex["docstring"] for ex in _examples(task) if labels.search(ex["docstring"])]
    assert leaks == []
    assert any(ct.MASK in ex["docstring"] for ex in _examples(task))  # the mask was needed somewhere


def test_docstring_classes_are_balanced_in_every_split() -> None:
    task = ct.load("stdlib_docstrings")
    assert len(task.labels) >= 10
    for split in SPLITS:
        counts = Counter(ex["module"] for ex in getattr(task, split))
        assert set(counts) == set(task.labels)
        assert max(counts.values()) - min(counts.values()) <= 1, (split, counts)
    for label in task.labels:
        assert label in task.instructions


def test_docstrings_are_trimmed_and_unique() -> None:
    task = ct.load("stdlib_docstrings")
    docs = [ex["docstring"] for ex in _examples(task)]
    assert len(docs) == len(set(docs))
    assert all(30 <= len(doc) <= ct.MAX_DOC_CHARS and "\n" not in doc for doc in docs)


def test_label_metric_forgives_case_and_punctuation_only() -> None:
    task = ct.load("stdlib_docstrings")
    example = {"docstring": "x", "module": "sqlite3"}
    assert task.score(example, " SQLite3.\n") == 1.0
    assert task.score(example, "`sqlite3`") == 1.0
    assert task.score(example, "sqlite") == 0.0
    assert task.score(example, "module: sqlite3") == 0.0


# --- stdlib_exec ------------------------------------------------------------------------------


def test_every_ground_truth_is_what_running_the_function_gives() -> None:
    task = ct.load("stdlib_exec")
    for ex in _examples(task):
        namespace: dict[str, Any] = {}
        exec(ex["code"], namespace)
        assert repr(eval(ex["call"], namespace)) == ex["output"], ex["id"]


def test_functions_are_short_and_answers_fit_a_small_model() -> None:
    task = ct.load("stdlib_exec")
    for ex in _examples(task):
        lines = [line for line in ex["code"].splitlines() if line.strip()]
        assert 3 <= len(lines) <= 8, ex["code"]
        assert ex["code"].count("def f(") == 1 and ex["call"].startswith("f(")
        assert len(ex["output"]) <= ct.MAX_OUTPUT_CHARS
    for split in SPLITS:
        counts = Counter(ex["template"] for ex in getattr(task, split))
        assert len(counts) == len(ct.TEMPLATES) and len(set(counts.values())) == 1


def test_exec_metric_compares_values_by_repr() -> None:
    task = ct.load("stdlib_exec")
    example = {"code": "", "call": "", "output": "('ab', [1, 2])"}
    assert task.score(example, "('ab', [1, 2])") == 1.0
    assert task.score(example, '("ab", [1,2])') == 1.0
    assert task.score(example, "```python\n('ab', [1, 2])\n```") == 1.0
    assert task.score(example, "('ab', [1, 2, 3])") == 0.0
    assert task.score(example, "the answer is ('ab', [1, 2])") == 0.0
    assert task.score({"output": "1"}, "True") == 0.0  # 1 == True, but not the same repr


def test_runaway_code_is_stopped() -> None:
    with pytest.raises(ct.CodeTimeout):
        ct.run_call("def f():\n    while True:\n        pass\n", "f()", timeout=0.2)


def test_main_writes_jsonl_and_meta(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ct.main(["stdlib_exec", "--write", str(tmp_path)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["sizes"] == ct.load("stdlib_exec").sizes()
    test_lines = (tmp_path / "stdlib_exec.test.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in test_lines] == ct.load("stdlib_exec").test
    meta = json.loads((tmp_path / "stdlib_exec.meta.json").read_text())
    assert meta["output_field"] == "output" and "PSF" in meta["licence"]
