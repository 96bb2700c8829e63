"""The knowledge graph in agent runs: kg_add / kg_query / kg_remove through real sessions (faked models), the
policy per mode, and what semantic mode offers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic_ai.messages import ToolReturnPart

from chrysalis.capabilities.knowledge.tools import kg_tools
from chrysalis.capabilities.memory.tools import memory_tools
from chrysalis.events import ApprovalRequest, Event, ToolResultEvent
from chrysalis.llm.testing import ScriptedModel, final, tool
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from chrysalis.tools.base import ToolContext
from chrysalis.tools.policy import Policy
from chrysalis.tools.registry import builtin_tools
from tests.helpers import run_ok

KG = {"kg_add", "kg_query", "kg_remove"}
MEMORY = {"remember", "recall", "forget"}
SUBSCRIPTIONS = {"subscribe", "unsubscribe"}
READS = {"read_file", "list_dir", "find", "grep", "git_status", "git_diff", "git_log", "system_stats"}
SUBAGENTS = {"spawn_agent", "agent_status", "cancel_agent"}


def unknown_tools(script: ScriptedModel) -> list[str]:
    """The calls the model was told are not tools of its run (they never reached a tool)."""
    return [
        part.tool_name
        for messages in script.seen
        for part in messages[-1].parts
        if isinstance(part, ToolReturnPart) and str(part.content).startswith("Unknown tool name")
    ]


def results(events: list[Event]) -> list[tuple[str, bool, str]]:
    return [(e.tool, e.ok, str(e.result if e.ok else e.error)) for e in events if isinstance(e, ToolResultEvent)]


def test_facts_added_in_one_run_are_queried_in_the_next_and_removed(workspace: Path, chrysalis_home: Path) -> None:
    adder = ScriptedModel(
        [
            tool("kg_add", subject="parser.py", predicate="depends_on", object="lexer.py"),
            tool("kg_add", subject="parser.py", predicate="rdfs:comment", object="Builds the tree", literal=True),
            tool("kg_add", subject="ruff", predicate="formats", object="Python", scope="global"),
            final("done"),
        ]
    )
    events = run_ok(workspace, adder, "map the modules", mode="semantic")
    assert not any(isinstance(e, ApprovalRequest) for e in events)  # graph writes need no approval
    said = results(events)
    assert [(name, ok) for name, ok, _ in said] == [("kg_add", True)] * 3
    assert said[0][2] == (
        "Added to this workspace's graph: parser.py depends_on lexer.py\n"
        "In SPARQL: kg:parser.py kg:depends_on kg:lexer.py"
    )
    assert said[2][2].startswith("Added to the global graph: ruff formats Python")

    asker = ScriptedModel(
        [
            tool("kg_query", sparql="SELECT ?p ?o WHERE { kg:parser.py ?p ?o } ORDER BY ?p"),
            tool("kg_query", sparql="ASK { kg:ruff kg:formats kg:Python }"),
            tool("kg_remove", subject="parser.py", predicate="depends_on", object="lexer.py"),
            tool("kg_query", sparql="ASK { kg:parser.py kg:depends_on ?x }"),
            final("done"),
        ]
    )
    (selected, asked, after) = results(run_ok(workspace, asker, "what does the parser need?", mode="ask"))
    assert selected == ("kg_query", True, '?p | ?o\nrdfs:comment | "Builds the tree"\ndepends_on | lexer.py\n(2 rows)')
    assert asked == ("kg_query", True, "true")
    assert "kg_remove" not in asker.offered[0]  # ask mode reads the graph; its kg_remove call never ran
    assert unknown_tools(asker) == ["kg_remove"]
    assert after == ("kg_query", True, "true")

    remover = ScriptedModel(
        [tool("kg_remove", subject="parser.py", predicate="depends_on", object="lexer.py"), final("done")]
    )
    ((_, ok, text),) = results(run_ok(workspace, remover, "the parser no longer needs the lexer", mode="semantic"))
    assert ok and text == "Removed from this workspace's graph: parser.py depends_on lexer.py"
    with Stores.open(chrysalis_home) as stores:
        assert [t.show() for t in stores.knowledge.triples()] == [
            'parser.py rdfs:comment "Builds the tree"',
            "ruff formats Python",
        ]
        assert stores.knowledge.triples([GLOBAL_SCOPE])[0].scope == GLOBAL_SCOPE


@pytest.mark.parametrize(
    ("sparql", "needles"),
    [
        (
            "INSERT DATA { kg:a kg:b kg:c }",
            ["SPARQL updates", "are refused", "A query that works: SELECT", "use kg_add and kg_remove"],
        ),
        ("SELECT ?x WHERE { ?x kg:depends_on", ["does not parse", "line 1, column", "A query that works: SELECT"]),
        ("SELECT ?x WHERE { SERVICE <http://127.0.0.1:9/q> { ?x ?p ?o } }", ["SERVICE is not allowed"]),
    ],
)
def test_a_refused_query_is_a_failed_result_that_names_the_problem_and_shows_a_working_query(
    workspace: Path, sparql: str, needles: list[str]
) -> None:
    events = run_ok(
        workspace, ScriptedModel([tool("kg_query", sparql=sparql), final("done")]), "query the graph", mode="semantic"
    )
    ((name, ok, error),) = results(events)
    assert name == "kg_query" and not ok
    for needle in needles:
        assert needle in error


def test_an_empty_graph_says_so_and_a_wrong_remove_says_how_to_look(workspace: Path) -> None:
    recorder = ScriptedModel(
        [
            tool("kg_query", sparql="SELECT ?s WHERE { ?s ?p ?o }"),
            tool("kg_remove", subject="x", predicate="y", object="z"),
            tool("kg_add", subject="x", predicate="y", object=" ", literal=True),
            final("done"),
        ]
    )
    (empty, missing, blank) = results(run_ok(workspace, recorder, "look", mode="semantic"))
    assert empty == ("kg_query", True, "No rows match.\nThe knowledge graph is empty: add facts with kg_add first.")
    assert missing[1] is False and "No such triple here; kg_query shows what is stored" in missing[2]
    assert blank == ("kg_add", False, "The literal object is empty: write the value to keep.")


def test_semantic_mode_offers_reading_memory_and_graph_tools_and_nothing_that_writes_or_runs(workspace: Path) -> None:
    writer = ScriptedModel(
        [tool("write_file", path="notes.md", content="x"), tool("shell", command="touch x"), final("done")]
    )
    run_ok(workspace, writer, "write down what you learn", mode="semantic", level="3", yes="true")
    assert set(writer.offered[0]) == READS | MEMORY | KG | SUBSCRIPTIONS | SUBAGENTS
    assert unknown_tools(writer) == ["write_file", "shell"]  # refused: they are not tools of this run
    assert not (workspace / "notes.md").exists() and not (workspace / "x").exists()
    assert "kg_add(" in writer.instructions[0] and "kg:NAME" in writer.instructions[0]

    # the embedded model's coder profile: its read tools, memory, the graph, subscriptions
    local = ScriptedModel([final("done")])
    run_ok(workspace, local, "map the modules", mode="semantic", profile="coder")
    assert set(local.offered[0]) == {"read_file", "list_dir", "grep"} | MEMORY | KG | SUBSCRIPTIONS


@pytest.mark.parametrize(
    ("mode", "offered"),
    [("code", KG), ("semantic", KG), ("ask", {"kg_query"}), ("architect", {"kg_query"})],
)
def test_which_graph_tools_each_mode_offers(workspace: Path, mode: str, offered: set[str]) -> None:
    recorder = ScriptedModel([final("done")])
    run_ok(workspace, recorder, "hello", mode=mode, level="0")
    assert set(recorder.offered[0]) & KG == offered


@pytest.mark.parametrize("level", range(4))
@pytest.mark.parametrize(("mode", "writes"), [("code", True), ("semantic", True), ("ask", False), ("architect", False)])
def test_graph_and_memory_writes_are_allowed_in_the_same_modes_at_any_level_without_asking_and_reads_everywhere(
    tmp_path: Path, level: int, mode: str, writes: bool
) -> None:
    with Stores.open(tmp_path / "home") as stores:
        tools = kg_tools(stores.knowledge) | memory_tools(stores.memory)
    policy = Policy(level=level, mode=mode)
    for name in ("kg_add", "kg_remove", "remember", "forget"):
        spec = tools[name]
        assert policy.decide(spec, spec.args.model_construct()).kind == ("allow" if writes else "deny"), name
    for name in ("kg_query", "recall"):
        spec = tools[name]
        assert policy.decide(spec, spec.args.model_construct()).kind == "allow", name


@pytest.mark.parametrize("level", range(4))
def test_semantic_mode_refuses_a_file_write_even_when_calls_are_approved(level: int) -> None:
    write_file = builtin_tools()["write_file"]
    semantic = Policy(level=level, mode="semantic", auto_approve=True)
    refused = semantic.decide(write_file, write_file.args.model_validate({"path": "notes.md", "content": "x"}))
    assert refused.kind == "deny" and refused.by in ("level", "mode")


def test_the_tools_work_without_a_run_and_keep_scopes_apart(tmp_path: Path) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    with Stores.open(tmp_path / "home") as stores:
        tools = kg_tools(stores.knowledge)
        in_alpha, in_beta = ToolContext(workspace=alpha), ToolContext(workspace=beta)
        tools["kg_add"]({"subject": "a.py", "predicate": "imports", "object": "b.py"}, in_alpha)
        tools["kg_add"]({"subject": "uv", "predicate": "installs", "object": "packages", "scope": "global"}, in_beta)
        seen_from_beta = tools["kg_query"]({"sparql": "SELECT ?s WHERE { ?s ?p ?o }"}, in_beta)
        again = tools["kg_add"]({"subject": "a.py", "predicate": "imports", "object": "b.py"}, in_alpha)
        only_global = tools["kg_remove"](
            {"subject": "a.py", "predicate": "imports", "object": "b.py", "scope": "global"}, in_alpha
        )
        bad_scope = tools["kg_add"]({"subject": "a", "predicate": "b", "object": "c", "scope": "team"}, in_alpha)
        assert [t.scope for t in stores.knowledge.triples()] == [workspace_scope(alpha), GLOBAL_SCOPE]
    assert seen_from_beta.ok and seen_from_beta.result == "?s\nuv\n(1 row)"
    assert again.ok and again.result.startswith("Already in this workspace's graph: a.py imports b.py")
    assert not only_global.ok
    assert not bad_scope.ok and bad_scope.error is not None and "Bad arguments for kg_add: scope" in bad_scope.error


def test_a_run_imports_rdflib_only_when_a_query_needs_it(tmp_path: Path) -> None:
    code = (
        "import sys, tempfile, pathlib\n"
        "from chrysalis.agent.session import AgentSession\n"
        "from chrysalis.capabilities.knowledge.tools import kg_tools\n"
        "from chrysalis.stores import Stores\n"
        "from chrysalis.tools.base import ToolContext\n"
        "home = pathlib.Path(tempfile.mkdtemp())\n"
        "with Stores.open(home) as stores:\n"
        "    tools = kg_tools(stores.knowledge)\n"
        "    tools['kg_add']({'subject': 'a', 'predicate': 'b', 'object': 'c'}, ToolContext(workspace=home))\n"
        "    print('BEFORE', 'rdflib' in sys.modules)\n"
        "    tools['kg_query']({'sparql': 'ASK { kg:a kg:b kg:c }'}, ToolContext(workspace=home))\n"
        "    print('AFTER', 'rdflib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.split() == ["BEFORE", "False", "AFTER", "True"]
