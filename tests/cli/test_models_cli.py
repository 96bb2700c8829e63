"""``chrysalis models``: the catalogue as a table and as JSON, discovery at ``/models``, a bad ``models.json``."""

from __future__ import annotations

import json
from pathlib import Path

from chrysalis.llm.testing import ScriptedOpenAIServer
from tests.helpers import assert_clean_error, chrysalis


def test_models_shows_the_catalogue_with_capabilities_and_tiers(workspace: Path) -> None:
    done = chrysalis("models", cwd=workspace, env={"COLUMNS": "220"})
    assert done.returncode == 0, done.stderr
    assert "model catalogue" in done.stdout
    row = next(line for line in done.stdout.splitlines() if "openai:gpt-4o-mini " in line and "built-in" in line)
    assert "coding" in row and "fast" in row and "low" in row


def test_models_json_discovers_a_servers_models_and_takes_the_users_overrides(
    workspace: Path, chrysalis_home: Path
) -> None:
    (chrysalis_home / "models.json").write_text(json.dumps({"models": {"tiny-coder-1b": {"strength": 2}}}))
    with ScriptedOpenAIServer([], models=["tiny-coder-1b", "big-thinker-70b"]) as server:
        done = chrysalis("models", "--discover", "--base-url", server.base_url, "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["discovered"] == ["tiny-coder-1b", "big-thinker-70b"] and document["problems"] == []
    cards = {card["model"]: card for card in document["models"]}
    assert cards["tiny-coder-1b"]["source"] == "models.json" and cards["tiny-coder-1b"]["strength"] == 2
    assert (
        cards["big-thinker-70b"]["source"] == "discovered" and "reasoning" in cards["big-thinker-70b"]["capabilities"]
    )
    assert cards["local:qwen2.5-coder-1.5b"]["source"] == "built-in"


def test_discovery_with_nothing_to_ask_says_what_to_give(workspace: Path) -> None:
    done = chrysalis("models", "--discover", "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "give --base-url URL" in json.loads(done.stdout)["problems"][0]


def test_a_bad_models_json_exits_2_naming_the_file(workspace: Path, chrysalis_home: Path) -> None:
    (chrysalis_home / "models.json").write_text('{"models": {"m": {"speed": "warp"}}}')
    done = chrysalis("models", cwd=workspace)
    assert_clean_error(done, 2, "models.json", "'warp'", "fast, medium, slow")
