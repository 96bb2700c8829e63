"""`chrysalis kg query | list`: what a person sees, the JSON, and the exit codes of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chrysalis.cli.app import main
from chrysalis.stores import Stores
from chrysalis.stores.knowledge import NAMESPACE
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from tests.helpers import assert_clean_error, chrysalis


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.fixture
def graph(workspace: Path, tmp_path: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.knowledge.add("parser.py", "depends_on", "lexer.py", workspace_scope(workspace))
        stores.knowledge.add("parser.py", "rdfs:comment", "Builds the [tree]", workspace_scope(workspace), literal=True)
        stores.knowledge.add("ruff", "formats", "Python", GLOBAL_SCOPE)
        stores.knowledge.add("beta.py", "depends_on", "lexer.py", workspace_scope(tmp_path))


def test_list_shows_each_scope_and_all(capsys: pytest.CaptureFixture[str], workspace: Path, graph: None) -> None:
    ws = ("--workspace", str(workspace))
    code, out, _ = cli(capsys, "kg", "list", *ws)
    assert code == 0
    assert out.splitlines() == [
        "parser.py depends_on lexer.py",
        'parser.py rdfs:comment "Builds the [tree]"',
        "ruff formats Python  (global)",
        f"beta.py depends_on lexer.py  ({workspace_scope(workspace.parent)})",
    ]
    code, out, _ = cli(capsys, "kg", "list", "--scope", "global", "--json", *ws)
    (only,) = json.loads(out)["triples"]
    assert code == 0 and only["subject"] == NAMESPACE + "ruff" and only["scope"] == "global" and not only["literal"]
    code, out, _ = cli(capsys, "kg", "list", "--scope", "workspace", *ws)
    assert len(out.splitlines()) == 2


def test_list_with_nothing_saved_says_so(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    code, out, _ = cli(capsys, "kg", "list", "--scope", "workspace", "--workspace", str(workspace))
    assert (code, out.strip()) == (0, "No triples in the workspace scope yet.")


def test_query_reads_this_workspace_and_global_as_a_table_or_json(
    capsys: pytest.CaptureFixture[str], workspace: Path, graph: None
) -> None:
    ws = ("--workspace", str(workspace))
    code, out, _ = cli(capsys, "kg", "query", "SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s ?o", *ws)
    assert code == 0
    # SPARQL orders IRIs before literals
    assert out.splitlines() == [
        "?s | ?o",
        "parser.py | lexer.py",
        'parser.py | "Builds the [tree]"',
        "ruff | Python",
        "(3 rows)",
    ]
    code, out, _ = cli(capsys, "kg", "query", "ASK { kg:beta.py ?p ?o }", "--json", *ws)
    assert code == 0 and json.loads(out) == {"head": {}, "boolean": False}  # beta's graph is not this workspace's
    code, out, _ = cli(capsys, "kg", "query", "SELECT ?o WHERE { kg:ruff kg:formats ?o }", "--json", *ws)
    assert json.loads(out)["results"]["bindings"] == [{"o": {"type": "uri", "value": NAMESPACE + "Python"}}]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["query", "SELECT ?x WHERE {\n ?x ?p"], ["does not parse", "line 2, column 2", "A query that works"]),
        (["query", "DELETE WHERE { ?s ?p ?o }"], ["SPARQL updates", "are refused"]),
        (["query", "SELECT ?x WHERE { SERVICE <http://127.0.0.1:9/q> { ?x ?p ?o } }"], ["SERVICE is not allowed"]),
        (["query", " "], ["The query is empty"]),
        (["list", "--scope", "team"], ["--scope 'team' is not a scope", "workspace, global, all"]),
    ],
)
def test_bad_input_exits_2_with_the_fix(
    capsys: pytest.CaptureFixture[str], workspace: Path, graph: None, args: list[str], needles: list[str]
) -> None:
    code, out, err = cli(capsys, "kg", *args, "--workspace", str(workspace))
    assert code == 2 and out == ""
    for needle in needles:
        assert needle in err


def test_bad_sparql_from_the_shell_is_a_clean_error(workspace: Path) -> None:
    done = chrysalis("kg", "query", "SELECT ?x WHERE { ?x ?p", "--workspace", str(workspace))
    assert_clean_error(done, 2, "does not parse", "line 1, column 19", "^")
