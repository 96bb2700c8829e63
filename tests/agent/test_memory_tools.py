"""Memory in agent runs: the tools through real sessions (faked models), the prompt section, and the policy."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.memory.tools import PROMPT_HEADING, memory_prompt, memory_tools, open_memory
from chrysalis.config import load_settings
from chrysalis.errors import ConfigError
from chrysalis.events import ApprovalRequest, Event, ToolResultEvent
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from chrysalis.tools.base import ToolContext
from chrysalis.tools.policy import Policy
from tests.helpers import EmbeddingServer

NOTE = "The integration tests need the FOO_URL environment variable."


@dataclass
class Recorder:
    """Plays ``calls`` (tool name, args) one per request, then answers "done"; records instructions and tools."""

    calls: list[tuple[str, dict[str, Any]]]
    instructions: list[str] = field(default_factory=list[str])
    offered: list[list[str]] = field(default_factory=list[list[str]])

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            last = messages[-1]
            assert isinstance(last, ModelRequest)
            self.instructions.append(last.instructions or "")
            self.offered.append([tool.name for tool in info.function_tools])
            step = len(self.offered) - 1
            if step < len(self.calls):
                name, args = self.calls[step]
                return ModelResponse(parts=[ToolCallPart(name, args)])
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)


def run(workspace: Path, task: str, recorder: Recorder, **flags: Any) -> list[Event]:
    events: list[Event] = []
    settings = load_settings({"workspace": workspace, **flags})
    session = AgentSession(settings, model=recorder.model(), on_event=events.append)
    try:
        result = asyncio.run(session.run(task))
    finally:
        session.close()
    assert result.success, result
    return events


def results(events: list[Event]) -> list[tuple[str, bool, str]]:
    return [(e.tool, e.ok, str(e.result if e.ok else e.error)) for e in events if isinstance(e, ToolResultEvent)]


def test_a_memory_saved_in_one_session_is_in_the_next_sessions_prompt(workspace: Path, tmp_path: Path) -> None:
    saver = Recorder([("remember", {"text": NOTE, "tags": ["tests"]})])
    events = run(workspace, "find out what the integration tests need", saver)
    assert not any(isinstance(e, ApprovalRequest) for e in events)  # a memory write needs no approval
    ((tool, ok, said),) = results(events)
    assert tool == "remember" and ok and "Remembered as memory 1" in said
    assert "Memories from earlier runs" not in saver.instructions[0]

    later = Recorder([])
    run(workspace, "run the integration tests", later)
    prompt = later.instructions[0]
    assert f"{PROMPT_HEADING}\n- [1] {NOTE}  #tests" in prompt

    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    stranger = Recorder([])
    run(elsewhere, "run the integration tests", stranger)
    assert NOTE not in stranger.instructions[0]


def test_a_global_memory_reaches_every_workspace_and_recall_finds_it(workspace: Path, tmp_path: Path) -> None:
    run(workspace, "note the style", Recorder([("remember", {"text": "Format Python with ruff.", "scope": "global"})]))
    other = tmp_path / "other"
    other.mkdir()
    recorder = Recorder([("recall", {"query": "python formatting"})])
    events = run(other, "how should code be formatted here?", recorder)
    assert "[1] Format Python with ruff. (global)" in recorder.instructions[0]
    ((tool, ok, said),) = results(events)
    assert tool == "recall" and ok
    assert said.startswith("1 memories, best first (ranked by words and meaning):\n[1] Format Python with ruff.")


def test_forget_removes_a_memory_and_an_unknown_id_is_told_to_the_model(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        kept = stores.memory.remember("Old: the API is on port 8000.", workspace_scope(workspace))
        foreign = stores.memory.remember("Beta's API is on port 9000.", "workspace:/somewhere/else")
    recorder = Recorder([("forget", {"id": kept}), ("forget", {"id": foreign}), ("forget", {"id": 999})])
    events = run(workspace, "the API moved to port 8080; forget the old note", recorder)
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
    events = run(workspace, "remember something", Recorder([("remember", args)]))
    ((tool, ok, said),) = results(events)
    assert tool == "remember" and not ok and needle in said


def test_an_empty_recall_query_is_an_error_for_the_model(workspace: Path) -> None:
    events = run(workspace, "look something up", Recorder([("recall", {"query": "  "})]))
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
    recorder = Recorder([])
    run(workspace, "hello", recorder, mode=mode, level="0")
    assert set(recorder.offered[0]) & {"remember", "recall", "forget"} == offered


def test_memory_writes_need_no_approval_at_any_level_and_reads_are_allowed_everywhere(tmp_path: Path) -> None:
    with Stores.open(tmp_path / "home") as stores:
        tools = memory_tools(stores.memory)
    for level in range(4):
        for mode, allowed in (("code", True), ("semantic", True), ("ask", False), ("architect", False)):
            policy = Policy(level=level, mode=mode)
            for name in ("remember", "forget"):
                spec = tools[name]
                assert policy.decide(spec, spec.args.model_construct()).kind == ("allow" if allowed else "deny")
            recall = tools["recall"]
            assert policy.decide(recall, recall.args.model_construct()).kind == "allow"


def test_the_coder_profile_sees_memories_in_its_prompt_but_no_memory_tools(
    workspace: Path, chrysalis_home: Path
) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember(NOTE, workspace_scope(workspace))
    recorder = Recorder([])
    run(workspace, "run the integration tests", recorder, profile="coder")
    assert NOTE in recorder.instructions[0]
    assert not set(recorder.offered[0]) & {"remember", "recall", "forget"}


def test_memory_tokens_0_keeps_memories_out_of_the_prompt(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember(NOTE, GLOBAL_SCOPE)
    recorder = Recorder([])
    run(workspace, "run the integration tests", recorder, memory_tokens="0")
    assert NOTE not in recorder.instructions[0]


def test_the_memory_section_comes_last_so_the_prompt_prefix_stays_the_same(workspace: Path) -> None:
    with Stores.open(load_settings({}).home) as stores:
        stores.memory.remember(NOTE, GLOBAL_SCOPE)
    first, second = Recorder([]), Recorder([])
    run(workspace, "run the integration tests", first)
    run(workspace, "what do the integration tests need", second)
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
        recorder = Recorder([("remember", {"text": NOTE}), ("recall", {"query": "integration tests"})])
        events = run(
            workspace, "what do the integration tests need", recorder, embeddings="fake-embed", base_url=server.base_url
        )
    (saved, found) = results(events)
    assert saved == ("remember", True, "Remembered as memory 1 (for this workspace).")
    assert found[1] and found[2].endswith(f"(ranked by words and meaning):\n[1] {NOTE}")
    assert {request.body["model"] for request in server.requests} == {"fake-embed"}
    with Stores.open(chrysalis_home) as stores:
        spaces = [row["space"] for row in stores.db.read("SELECT space FROM memory_vectors")]
    assert spaces == ["openai-compatible:fake-embed-64"]


def test_a_run_whose_embedder_fails_keeps_the_memory_and_tells_the_model(workspace: Path) -> None:
    recorder = Recorder([("remember", {"text": NOTE}), ("recall", {"query": "integration tests"})])
    events = run(workspace, "what do the integration tests need", recorder, embeddings="openai:text-embedding-3-small")
    (saved, found) = results(events)  # no OPENAI_API_KEY: nothing is sent, the note is kept
    assert saved[:2] == ("remember", True) and saved[2].startswith(
        "Remembered as memory 1 (for this workspace). Note: "
    )
    assert (
        "OPENAI_API_KEY" in saved[2] and "embeddings = 'openai:text-embedding-3-small' (flag --embeddings)" in saved[2]
    )
    assert found[1] and found[2].endswith(f"(ranked by words only):\n[1] {NOTE}")
