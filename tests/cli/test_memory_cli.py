"""`chrysalis memory list | search | forget`: what a person sees, the JSON, and the exit codes of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chrysalis.cli.app import main
from chrysalis.stores import Stores
from chrysalis.stores.memory import GLOBAL_SCOPE, workspace_scope
from tests.helpers import assert_clean_error, chrysalis


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
    assert lines[-1] == "1 memories found; ranked by words and meaning (hybrid)."
    code, out, _ = cli(capsys, "memory", "search", "helm deploys", "-k", "3", "--json", "--workspace", str(workspace))
    found = json.loads(out)
    assert code == 0 and found == {"ranking": "hybrid", "note": "", "hits": []}  # beta's memory is not this workspace's
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


def test_the_command_as_a_user_runs_it(workspace: Path, chrysalis_home: Path) -> None:
    with Stores.open(chrysalis_home) as stores:
        stores.memory.remember("Tests run with `make test`.", workspace_scope(workspace))
    done = chrysalis("memory", "search", "tests", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "[1] Tests run with `make test`." in done.stdout
    assert_clean_error(chrysalis("memory", "forget", "7"), 2, "No memory has the id 7")
