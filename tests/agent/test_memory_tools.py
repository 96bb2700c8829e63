"""Memory in agent runs: the tools through real sessions (faked models), the prompt section, and the policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chrysalis.capabilities.memory.tools import PROMPT_HEADING, memory_prompt, memory_tools, open_memory
from chrysalis.config import load_settings
from chrysalis.errors import ConfigError
from chrysalis.events import ApprovalRequest, Event, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from chrysalis.tools.base import ToolContext
from tests.helpers import EmbeddingServer, run_ok

NOTE = "The integration tests need the FOO_URL environment variable."


def results(events: list[Event]) -> list[tuple[str, bool, str]]:
    return [(e.tool, e.ok, str(e.result if e.ok else e.error)) for e in events if isinstance(e, ToolResultEvent)]


def test_a_memory_saved_in_one_session_is_in_the_next_sessions_prompt(workspace: Path, tmp_path: Path) -> None:
    saver = ScriptedModel([tool("remember", text=NOTE, tags=["tests"]), final("done")])
    events = run_ok(workspace, saver, "find out what the integration tests need")
    assert not any(isinstance(e, ApprovalRequest) for e in events)  # a memory write needs no approval
    ((name, ok, said),) = results(events)
    assert name == "remember" and ok and "Remembered as memory 1" in said
    assert "Memories from earlier runs" not in saver.instructions[0]

    later = ScriptedModel([final("done")])
    run_ok(workspace, later, "run the integration tests")
    prompt = later.instructions[0]
    assert f"{PROMPT_HEADING}\n- [1] {NOTE}  #tests" in prompt

    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    stranger = ScriptedModel([final("done")])
    run_ok(elsewhere, stranger, "run the integration tests")
    assert NOTE not in stranger.instructions[0]


def test_a_global_memory_reaches_every_workspace_and_recall_finds_it(workspace: Path, tmp_path: Path) -> None:
    run_ok(
        workspace,
        ScriptedModel([tool("remember", text="Format Python with ruff.", scope="global"), final("done")]),
        "note the style",
    )
    other = tmp_path / "other"
    other.mkdir()
    recorder = ScriptedModel([tool("recall", query="python formatting"), final("done")])
    events = run_ok(other, recorder, "how should code be formatted here?")
    assert "[1] Format Python with ruff. (global)" in recorder.instructions[0]
    ((name, ok, said),) = results(events)
    assert name == "recall" and ok
    assert said.startswith("1 memories, best first (ranked by words and meaning):\n[1] Format Python with ruff.")


def test_forget_removes_a_memory_and_an_unknown_id_is_told_to_the_model(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        kept = stores.memory.remember("Old: the API is on port 8000.", workspace_scope(workspace))
        foreign = stores.memory.remember("Beta's API is on port 9000.", "workspace:/somewhere/else")
    recorder = ScriptedModel(
        [tool("forget", id=kept), tool("forget", id=foreign), tool("forget", id=999), final("done")]
    )
    events = run_ok(workspace, recorder, "the API moved to port 8080; forget the old note")
    (gone, not_here, unknown) = results(events)
    assert gone == ("forget", True, f"Forgot memory {kept}: Old: the API is on port 8000.")
    assert not_here[1] is False and f"No memory {foreign} in this workspace or the global scope" in not_here[2]
    assert unknown[1] is False and "recall shows the ids" in unknown[2]
    with Stores.open(chrysalis_home) as stores:
        assert [m.id for m in stores.memory.list_memories()] == [foreign]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"text": "   "}, "The memory is empty"),
        ({"text": "x", "tags": ["two words"]}, "Bad tag 'two words'"),
        ({"text": "x", "scope": "team"}, "Bad arguments for remember: scope"),
        ({"text": "x" * 2001}, "keep one to 2000"),
    ],
)
def test_bad_memories_from_the_model_come_back_as_errors_it_can_fix(
    workspace: Path, args: dict[str, Any], needle: str
) -> None:
    events = run_ok(workspace, ScriptedModel([tool("remember", **args), final("done")]), "remember something")
    ((name, ok, said),) = results(events)
    assert name == "remember" and not ok and needle in said


def test_an_empty_recall_query_is_an_error_for_the_model(workspace: Path) -> None:
    events = run_ok(workspace, ScriptedModel([tool("recall", query="  "), final("done")]), "look something up")
    assert results(events) == [("recall", False, "The query is empty: say in a few words what to look for.")]


@pytest.mark.parametrize(
    ("mode", "offered"),
    [
        ("code", {"remember", "recall", "forget"}),
        ("semantic", {"remember", "recall", "forget"}),
        ("ask", {"recall"}),
        ("architect", {"recall"}),
    ],
)
def test_which_memory_tools_each_mode_offers(workspace: Path, mode: str, offered: set[str]) -> None:
    recorder = ScriptedModel([final("done")])
    run_ok(workspace, recorder, "hello", mode=mode, level="0")
    assert set(recorder.offered[0]) & {"remember", "recall", "forget"} == offered


def test_the_coder_profile_sees_memories_in_its_prompt_but_no_memory_tools(
    workspace: Path, chrysalis_home: Path
) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember(NOTE, workspace_scope(workspace))
    recorder = ScriptedModel([final("done")])
    run_ok(workspace, recorder, "run the integration tests", profile="coder")
    assert NOTE in recorder.instructions[0]
    assert not set(recorder.offered[0]) & {"remember", "recall", "forget"}


def test_memory_tokens_0_keeps_memories_out_of_the_prompt(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember(NOTE, GLOBAL_SCOPE)
    recorder = ScriptedModel([final("done")])
    run_ok(workspace, recorder, "run the integration tests", memory_tokens="0")
    assert NOTE not in recorder.instructions[0]


def test_the_memory_section_comes_last_so_the_prompt_prefix_stays_the_same(workspace: Path) -> None:
    with Stores.open(load_settings({}).home) as stores:
        stores.memory.remember(NOTE, GLOBAL_SCOPE)
    first, second = ScriptedModel([final("done")]), ScriptedModel([final("done")])
    run_ok(workspace, first, "run the integration tests")
    run_ok(workspace, second, "what do the integration tests need")
    prefix = first.instructions[0].split(PROMPT_HEADING)[0]
    assert prefix and second.instructions[0].startswith(prefix)
    assert first.instructions[0].endswith(f"- [1] {NOTE} (global)")


def test_a_bad_memory_tokens_setting_names_the_key_and_what_is_allowed(workspace: Path) -> None:
    with pytest.raises(ConfigError, match=r"bad value '-1' for 'memory_tokens'.*0 or more"):
        load_settings({"workspace": workspace, "memory_tokens": "-1"})


def test_the_prompt_takes_the_best_memories_that_fit_the_budget(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Stores.open(tmp_path / "home") as stores:
        memory = open_memory(stores, load_settings({"workspace": workspace}))
        scope = workspace_scope(workspace)
        long_id = memory.remember("Tests: " + "the tests are slow because of fixtures; " * 8, scope)
        short_id = memory.remember("Tests run with `make test`.", scope)
        unrelated = memory.remember("Releases are tagged by hand.", scope)
        roomy = memory_prompt(memory, "how do I run the tests", workspace, 400)
        tight = memory_prompt(memory, "how do I run the tests", workspace, 40)
        assert memory_prompt(memory, "how do I run the tests", workspace, 0) == ""
        assert memory_prompt(memory, "zebra", workspace, 400) == ""
    assert f"[{long_id}]" in roomy and f"[{short_id}]" in roomy and f"[{unrelated}]" not in roomy
    assert tight == f"{PROMPT_HEADING}\n- [{short_id}] Tests run with `make test`."
    assert len(tight) <= 40 * 4


def test_the_tools_work_without_a_run(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Stores.open(tmp_path / "home") as stores:
        tools = memory_tools(open_memory(stores, load_settings({"workspace": workspace})))
        ctx = ToolContext(workspace=workspace)
        saved = tools["remember"]({"text": "Use uv for installs.", "tags": ["setup"]}, ctx)
        found = tools["recall"]({"query": "installs", "k": 3}, ctx)
        missing = tools["recall"]({"query": "nothing like it"}, ctx)
        bad_k = tools["recall"]({"query": "uv", "k": 0}, ctx)
    assert saved.ok and saved.result == "Remembered as memory 1 (for this workspace)."
    assert found.ok and found.result.endswith("[1] Use uv for installs.  #setup")
    assert missing.ok and missing.result == "No memory matches."
    assert not bad_k.ok and bad_k.error is not None and "k" in bad_k.error


def test_the_embeddings_setting_picks_the_embedder_of_a_run(workspace: Path, chrysalis_home: Path) -> None:
    with EmbeddingServer() as server:
        recorder = ScriptedModel(
            [tool("remember", text=NOTE), tool("recall", query="integration tests"), final("done")]
        )
        events = run_ok(
            workspace, recorder, "what do the integration tests need", embeddings="fake-embed", base_url=server.base_url
        )
    (saved, found) = results(events)
    assert saved == ("remember", True, "Remembered as memory 1 (for this workspace).")
    assert found[1] and found[2].endswith(f"(ranked by words and meaning):\n[1] {NOTE}")
    assert {request.body["model"] for request in server.requests} == {"fake-embed"}
    with Stores.open(chrysalis_home) as stores:
        spaces = [row["space"] for row in stores.db.read("SELECT space FROM memory_vectors")]
    assert spaces == ["openai-compatible:fake-embed-64"]


def test_a_run_whose_embedder_fails_keeps_the_memory_and_tells_the_model(workspace: Path) -> None:
    recorder = ScriptedModel([tool("remember", text=NOTE), tool("recall", query="integration tests"), final("done")])
    events = run_ok(
        workspace, recorder, "what do the integration tests need", embeddings="openai:text-embedding-3-small"
    )
    (saved, found) = results(events)  # no OPENAI_API_KEY: nothing is sent, the note is kept
    assert saved[:2] == ("remember", True) and saved[2].startswith(
        "Remembered as memory 1 (for this workspace). Note: "
    )
    assert (
        "OPENAI_API_KEY" in saved[2] and "embeddings = 'openai:text-embedding-3-small' (flag --embeddings)" in saved[2]
    )
    assert found[1] and found[2].endswith(f"(ranked by words only):\n[1] {NOTE}")


def test_recall_brings_a_huge_k_down_to_its_ceiling() -> None:
    """A small model asks for "all" with a huge k; it gets the 20 it would get anyway, not an error."""
    from chrysalis.capabilities.memory.tools import RecallArgs

    assert RecallArgs.model_validate({"query": "build", "k": 10**9}).k == 20
    assert RecallArgs.model_json_schema()["properties"]["k"]["maximum"] == 20
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        RecallArgs.model_validate({"query": "build", "k": 0})
