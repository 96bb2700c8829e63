"""`--model auto`, its config, and `chrysalis models` showing what the eval store has taught."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from chrysalis.cli.models_cmd import NOTHING_LEARNED, render_learned
from chrysalis.llm.testing import ScriptedOpenAIServer
from chrysalis.stores import Stores
from tests.helpers import assert_clean_error, chrysalis

LOCAL = "local:qwen2.5-coder-1.5b"
MINI = "openai:gpt-4o-mini"


def configure(workspace: Path, text: str) -> None:
    (workspace / ".chrysalis").mkdir(exist_ok=True)
    (workspace / ".chrysalis" / "config.toml").write_text(text)


def log(stores: Stores, model: str, kind: str, successes: int, failures: int, profile: str = "all") -> None:
    for i in range(successes + failures):
        stores.evals.log(
            run_id=f"r{i}",
            profile=profile,
            task_type=kind,
            model=model,
            success=i < successes,
            duration_ms=100.0,
            cost_usd=0.002 if model == MINI else 0.0,
            input_tokens=10,
            output_tokens=1,
        )


def run_auto(workspace: Path, server: ScriptedOpenAIServer, *extra: str) -> list[dict[str, Any]]:
    done = chrysalis(
        "run",
        "explain calc.py",
        "--json",
        "--model",
        "auto",
        "--base-url",
        server.base_url,
        "--workspace",
        str(workspace),
        *extra,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_auto_run_says_what_it_picked_and_the_record_closes_the_loop(workspace: Path, chrysalis_home: Path) -> None:
    configure(workspace, 'auto_models = ["model-a", "model-b"]\n')
    with ScriptedOpenAIServer(["It subtracts, wrongly."]) as server:
        events = run_auto(workspace, server)
        asked_for = server.requests[0]["model"]
    start = events[0]
    assert start["type"] == "start" and start["model"] in ("model-a", "model-b")
    assert start["model"] == asked_for  # the server was asked for the model the event names
    assert str(start["model_reason"]).startswith(f"auto picked {start['model']} for 'explain' tasks")
    assert [c["model"] for c in start["candidates"]] == ["model-a", "model-b"]
    assert start["task_type"] == "explain" and start["profile"] == "all"
    with Stores.open(chrysalis_home) as stores:
        assert [(r.model, r.runs, r.successes) for r in stores.evals.by_model()] == [(start["model"], 1, 1)]
    # The human view names the pick too.
    with ScriptedOpenAIServer(["It subtracts."]) as server:
        done = chrysalis(
            "run", "explain calc.py", "--model", "auto", "--base-url", server.base_url, "--workspace", str(workspace)
        )
    assert done.returncode == 0, done.stderr
    assert "auto picked model-" in done.stdout and "tools: all (the default" in done.stdout


def test_auto_run_prefers_the_model_with_the_better_record(workspace: Path, chrysalis_home: Path) -> None:
    configure(workspace, 'model = "auto"\nauto_models = ["model-a", "model-b"]\n')
    with Stores.open(chrysalis_home) as stores:
        log(stores, "model-a", "explain", 0, 15)
        log(stores, "model-b", "explain", 15, 0)
    with ScriptedOpenAIServer(["It adds."]) as server:
        events = run_auto(workspace, server)
    assert events[0]["model"] == "model-b"


@pytest.mark.parametrize(
    ("config", "flags", "needles"),
    [
        ("auto_models = [1]\n", [], ["config.toml:1", "'auto_models'", "provider:name"]),
        ('auto_models = "local:x:"\n', [], ["'auto_models'", "provider:name"]),
        ('auto_models = ["nosuch:thing"]\n', [], ["'nosuch:thing' in 'auto_models'", "Known providers"]),
        (f'auto_models = ["{MINI}"]\n', [], ["auto_models", "OPENAI_API_KEY"]),
        ("", ["--base-url", "http://127.0.0.1:9/v1"], ["needs 'auto_models'"]),
    ],
)
def test_bad_auto_config_exits_2_naming_the_key(
    workspace: Path, config: str, flags: list[str], needles: list[str]
) -> None:
    configure(workspace, config)
    done = chrysalis("run", "explain", "--model", "auto", *flags, "--workspace", str(workspace))
    assert_clean_error(done, 2, *needles)


def test_models_says_in_one_line_when_nothing_is_learned(workspace: Path) -> None:
    done = chrysalis("models", cwd=workspace, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().splitlines()[-1] == NOTHING_LEARNED


def test_models_shows_what_was_learned(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        log(stores, "ollama:qwen2.5-coder", "fix", 4, 1, profile="coder")
    done = chrysalis("models", cwd=workspace, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if "ollama:qwen2.5-coder " in line and "fix" in line)
    assert "80%" in row and "coder" in row
    assert f"--model auto chooses among {LOCAL}" in done.stdout


def render(stores: Stores, candidates: list[str]) -> str:
    out = io.StringIO()
    render_learned(stores, candidates, Console(file=out, width=200, color_system=None))
    return out.getvalue()


def cells(text: str, model: str, kind: str) -> list[str]:
    line = next(line for line in text.splitlines() if f" {model} " in line and f" {kind} " in line)
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_learned_table_without_data(tmp_path: Path) -> None:
    with Stores.open(tmp_path / "home") as stores:
        assert render(stores, [LOCAL, MINI]).strip() == NOTHING_LEARNED


def test_learned_table_rows_posteriors_profiles_and_the_preferred_model(tmp_path: Path) -> None:
    with Stores.open(tmp_path / "home") as stores:
        log(stores, LOCAL, "fix", 1, 3, profile="coder")
        log(stores, MINI, "fix", 6, 0, profile="editor")
        log(stores, MINI, "fix", 1, 1, profile="all")
        log(stores, LOCAL, "explain", 3, 0, profile="all")
        text = render(stores, [LOCAL, MINI])
    # task type, model, runs, success, posterior mean, mean USD, best profile, auto
    assert cells(text, MINI, "fix") == [
        "fix",
        MINI,
        "8",
        "88%",
        f"{(1 + 7) / (3 + 8):.2f}",
        "0.0020",
        "editor",
        "◀ preferred",
    ]
    assert cells(text, LOCAL, "fix") == [
        "fix",
        LOCAL,
        "4",
        "25%",
        f"{(2 + 1) / (3 + 4):.2f}",
        "0.0000",
        "coder",
        "candidate",
    ]
    # A candidate with no runs of a task type is shown with its prior; the cheaper one is preferred.
    assert cells(text, MINI, "explain")[2:] == ["0", "-", f"{1 / 3:.2f}", "-", "-", "candidate"]
    assert cells(text, LOCAL, "explain")[-1] == "◀ preferred"
    assert f"--model auto chooses among {LOCAL}, {MINI}" in text


def test_learned_table_says_why_auto_cannot_choose(tmp_path: Path) -> None:
    with Stores.open(tmp_path / "home") as stores:
        log(stores, LOCAL, "fix", 1, 0)
        out = io.StringIO()
        render_learned(stores, [], Console(file=out, width=200, color_system=None), "a reason")
    assert "--model auto cannot choose with these settings: a reason" in out.getvalue()


def test_evolve_sends_its_requests_to_the_base_url_given() -> None:
    from pydantic_ai.models.openai import OpenAIChatModel

    from chrysalis.cli.evolve_cmd import _model
    from chrysalis.config import load_settings

    model = _model(load_settings({"model": "bench", "base_url": "http://127.0.0.1:9/v1"}))
    assert isinstance(model, OpenAIChatModel) and model.base_url.startswith("http://127.0.0.1:9/v1")
    assert _model(load_settings({"model": "local:qwen2.5-coder-0.5b"})) == "local:qwen2.5-coder-0.5b"
