"""`chrysalis memory list | search | forget`: what a person sees, the JSON, and the exit codes of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chrysalis.cli.app import main
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from tests.helpers import EmbeddingServer, assert_clean_error, chrysalis


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


@pytest.fixture
def saved(workspace: Path, tmp_path: Path, chrysalis_home: Path) -> dict[str, int]:
    with Stores.open(chrysalis_home) as stores:
        return {
            "here": stores.memory.remember("Tests run with `make test`.", workspace_scope(workspace), ["tests"]),
            "global": stores.memory.remember("Prefer small commits [always].", GLOBAL_SCOPE),
            "elsewhere": stores.memory.remember("Beta deploys with helm.", workspace_scope(tmp_path)),
        }


def test_list_shows_each_scope_and_all(
    capsys: pytest.CaptureFixture[str], workspace: Path, saved: dict[str, int]
) -> None:
    ws = ("--workspace", str(workspace))
    code, out, _ = cli(capsys, "memory", "list", *ws)
    assert code == 0
    assert out.splitlines() == [
        f"[{saved['elsewhere']}] Beta deploys with helm. ({workspace_scope(workspace.parent)})",
        f"[{saved['global']}] Prefer small commits [always]. (global)",
        f"[{saved['here']}] Tests run with `make test`.  #tests",
    ]
    code, out, _ = cli(capsys, "memory", "list", "--scope", "workspace", "--json", *ws)
    assert code == 0
    (only,) = json.loads(out)["memories"]
    assert only["id"] == saved["here"] and only["tags"] == ["tests"] and only["scope"] == workspace_scope(workspace)
    code, out, _ = cli(capsys, "memory", "list", "--scope", "global", *ws)
    assert out.splitlines() == [f"[{saved['global']}] Prefer small commits [always]. (global)"]


def test_list_with_nothing_saved_says_so(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    code, out, _ = cli(capsys, "memory", "list", "--scope", "workspace", "--workspace", str(workspace))
    assert (code, out.strip()) == (0, "No memories in the workspace scope yet.")


def test_search_ranks_this_workspace_and_global_and_says_how(
    capsys: pytest.CaptureFixture[str], workspace: Path, saved: dict[str, int]
) -> None:
    code, out, _ = cli(capsys, "memory", "search", "how do I run the tests", "--workspace", str(workspace))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"[{saved['here']}] Tests run with `make test`.  #tests"
    assert lines[-1] == (  # the fixture kept them without an embedder
        "1 memories found; ranked by words and meaning (hybrid); 2 of these memories have no vector of lexical-512 "
        "yet (kept by another embedder, or without one), so only their words rank them: `chrysalis memory reindex` "
        "embeds them."
    )
    assert cli(capsys, "memory", "reindex")[0] == 0
    code, out, _ = cli(capsys, "memory", "search", "how do I run the tests", "--workspace", str(workspace))
    assert out.splitlines()[-1] == "1 memories found; ranked by words and meaning (hybrid)."
    code, out, _ = cli(capsys, "memory", "search", "helm deploys", "-k", "3", "--json", "--workspace", str(workspace))
    found = json.loads(out)
    assert code == 0 and found == {
        "ranking": "hybrid",
        "note": "",
        "without_vectors": 0,
        "hits": [],
    }  # beta's memory is not this workspace's
    code, out, _ = cli(capsys, "memory", "search", "commits", "--json", "--workspace", str(workspace))
    (hit,) = json.loads(out)["hits"]
    assert hit["id"] == saved["global"] and hit["bm25"] < 0 and hit["score"] > 0


def test_forget_deletes_by_id_in_any_scope(capsys: pytest.CaptureFixture[str], saved: dict[str, int]) -> None:
    code, out, _ = cli(capsys, "memory", "forget", str(saved["elsewhere"]), "--json")
    assert code == 0 and json.loads(out)["forgot"]["text"] == "Beta deploys with helm."
    code, out, _ = cli(capsys, "memory", "forget", str(saved["global"]))
    assert code == 0 and out.strip() == f"Forgot memory {saved['global']} (global): Prefer small commits [always]."
    code, _, err = cli(capsys, "memory", "forget", str(saved["global"]))
    assert code == 2 and f"No memory has the id {saved['global']}" in err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("forget", "42"), "No memory has the id 42; `chrysalis memory list --scope all` shows every id."),
        (("forget", "m12"), "'m12' is not a memory id"),
        (("list", "--scope", "team"), "--scope 'team' is not a scope: use one of workspace, global, all."),
        (("search", "  "), "The query is empty"),
        (("search", "tests", "-k", "0"), "-k 0 is out of range"),
        (("search", "tests", "-k", "51"), "-k 51 is out of range"),
    ],
)
def test_bad_input_exits_2_with_the_fix(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], needle: str) -> None:
    code, out, err = cli(capsys, "memory", *args)
    assert code == 2 and out == ""
    assert needle in " ".join(err.split())


def test_reindex_embeds_the_memories_without_a_vector_of_the_configured_embedder(
    capsys: pytest.CaptureFixture[str], saved: dict[str, int]
) -> None:
    code, out, _ = cli(capsys, "memory", "reindex")
    assert (code, out.strip()) == (0, "Embedded 3 of 3 memories with lexical-512 (those without its vectors).")
    code, out, _ = cli(capsys, "memory", "reindex")
    assert (code, out.strip()) == (0, "Embedded 0 of 3 memories with lexical-512 (those without its vectors).")
    code, out, _ = cli(capsys, "memory", "reindex", "--all", "--json")
    assert (code, json.loads(out)) == (0, {"embedded": 3, "memories": 3, "space": "lexical-512"})


def test_reindex_with_a_provider_gives_its_vectors_to_every_memory(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, workspace: Path, saved: dict[str, int]
) -> None:
    assert cli(capsys, "memory", "reindex")[0] == 0  # lexical vectors first: another embedder's
    with EmbeddingServer() as server:
        monkeypatch.setenv("CHRYSALIS_EMBEDDINGS", "fake-embed")
        monkeypatch.setenv("CHRYSALIS_BASE_URL", server.base_url)
        code, out, _ = cli(capsys, "memory", "search", "tests", "--json", "--workspace", str(workspace))
        assert code == 0 and json.loads(out)["without_vectors"] == 2
        code, out, _ = cli(capsys, "memory", "reindex")
        assert (code, out.strip()) == (
            0,
            "Embedded 3 of 3 memories with openai-compatible:fake-embed-64 (those without its vectors).",
        )
        code, out, _ = cli(capsys, "memory", "search", "tests", "--json", "--workspace", str(workspace))
    found = json.loads(out)
    assert (found["ranking"], found["without_vectors"], found["hits"][0]["id"]) == ("hybrid", 0, saved["here"])


def test_reindex_with_an_embedder_that_cannot_be_used_exits_2_and_keeps_the_memories(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, saved: dict[str, int], chrysalis_home: Path
) -> None:
    monkeypatch.setenv("CHRYSALIS_EMBEDDINGS", "openai:text-embedding-3-small")
    code, out, err = cli(capsys, "memory", "reindex")
    assert code == 2 and out == ""
    message = " ".join(err.split())
    assert "Cannot reindex the memories: embeddings = 'openai:text-embedding-3-small' (env CHRYSALIS_EMBEDDINGS)" in (
        message
    )
    assert "set the OPENAI_API_KEY environment variable" in message and "No memory is lost" in message
    with Stores.open(chrysalis_home) as stores:
        assert len(stores.memory.list_memories()) == 3


def test_the_command_as_a_user_runs_it(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember("Tests run with `make test`.", workspace_scope(workspace))
    done = chrysalis("memory", "search", "tests", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "[1] Tests run with `make test`." in done.stdout
    assert_clean_error(chrysalis("memory", "forget", "7"), 2, "No memory has the id 7")
