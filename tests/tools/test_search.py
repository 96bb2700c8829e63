from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.tools.base import ToolContext
from chrysalis.tools.search import GrepArgs, find, glob_regex, grep


@pytest.fixture
def tree(ws: Path) -> Path:
    files = {
        "setup.py": "import setuptools\n",
        "src/calc.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n",
        "src/util/io.py": "def read(path):\n    return open(path).read()\n",
        "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        "docs/notes.md": "Add more tests.\n",
        ".git/config": "def add(): pass\n",
        "__pycache__/calc.cpython-311.pyc": "def add\n",
        "node_modules/x/index.js": "function add() {}\n",
    }
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / "blob.bin").write_bytes(b"def add\x00\x01")
    return ws


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", ["setup.py", "src/calc.py", "src/util/io.py", "tests/test_calc.py"]),
        ("*.py", ["setup.py", "src/calc.py", "src/util/io.py", "tests/test_calc.py"]),
        ("test_*.py", ["tests/test_calc.py"]),
        ("src/*.py", ["src/calc.py"]),
        ("src/**/*.py", ["src/calc.py", "src/util/io.py"]),
        ("./docs/*.md", ["docs/notes.md"]),
        ("src/[cd]alc.py", ["src/calc.py"]),
        ("src/[!c]alc.py", []),
    ],
)
def test_find_globs(tree: Path, ctx: ToolContext, pattern: str, expected: list[str]) -> None:
    result = find({"pattern": pattern}, ctx)
    assert result.ok
    assert result.result == ("\n".join(expected) if expected else f"No files match {pattern!r}.")


@pytest.mark.parametrize(("pattern", "error"), [("../*", "without '..'"), ("/etc/*", "relative"), ("", "empty")])
def test_find_bad_patterns(tree: Path, ctx: ToolContext, pattern: str, error: str) -> None:
    result = find({"pattern": pattern}, ctx)
    assert not result.ok
    assert error in (result.error or "")


def test_find_does_not_follow_links_out(tree: Path, tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "secret.py").write_text("x")
    (tree / "leak.py").symlink_to(tmp_path / "secret.py")
    assert "leak.py" not in find({"pattern": "*.py"}, ctx).result


def test_glob_regex_double_star() -> None:
    assert glob_regex("**/*.py").match("a/b/c.py")
    assert glob_regex("**/*.py").match("c.py")
    assert not glob_regex("*.py").match("a/c.py")


def test_grep_shows_path_line_text(tree: Path, ctx: ToolContext) -> None:
    result = grep({"pattern": r"def (add|sub)"}, ctx)
    assert result.ok
    assert result.result == "src/calc.py:1: def add(a, b):\nsrc/calc.py:5: def sub(a, b):"


def test_grep_path_can_be_a_folder_a_file_or_a_glob(tree: Path, ctx: ToolContext) -> None:
    assert grep({"pattern": "return", "path": "src/util"}, ctx).result == "src/util/io.py:2: return open(path).read()"
    assert grep({"pattern": "add", "path": "docs/notes.md"}, ctx).result == "No matches for 'add' in 1 file(s)."
    assert grep({"pattern": "add", "path": "docs/notes.md", "ignore_case": True}, ctx).result == (
        "docs/notes.md:1: Add more tests."
    )
    assert grep({"pattern": "import", "path": "tests/*.py"}, ctx).result == "tests/test_calc.py:1: from calc import add"


def test_grep_stops_at_max_matches(tree: Path, ctx: ToolContext) -> None:
    result = grep({"pattern": "a", "max_matches": 2}, ctx)
    lines = result.result.splitlines()
    assert len(lines) == 3
    assert lines[-1] == "[stopped after 2 matches; narrow the pattern or path]"


def test_grep_brings_a_huge_max_matches_down_to_its_ceiling(tree: Path, ctx: ToolContext) -> None:
    """The 1.5B model asks for every match with 10**15: refusing cost it a step to ask again."""
    result = grep({"pattern": "add", "max_matches": 10**15}, ctx)
    assert result.ok, result.error
    assert "src/calc.py:1: def add(a, b):" in result.result
    assert GrepArgs.model_validate({"pattern": "x", "max_matches": 10**15}).max_matches == 500
    assert GrepArgs.model_json_schema()["properties"]["max_matches"]["maximum"] == 500


def test_grep_cuts_long_lines(ws: Path, ctx: ToolContext) -> None:
    (ws / "long.txt").write_text("needle " + "x" * 500 + "\n")
    line = grep({"pattern": "needle"}, ctx).result
    assert line.endswith("...")
    assert len(line) < 230


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"pattern": "def (add"}, "Bad regular expression 'def (add': missing ), unterminated subpattern"),
        ({"pattern": "x", "path": "../"}, "leave the workspace"),
        ({"pattern": "x", "path": "/etc"}, "outside the workspace"),
        ({"pattern": "x", "path": "nope"}, "does not exist"),
        ({"pattern": "x", "max_matches": "many"}, "Bad arguments for grep: max_matches"),
        ({"pattern": "x", "max_matches": 0}, "Bad arguments for grep: max_matches"),
    ],
)
def test_grep_bad_inputs(tree: Path, ctx: ToolContext, args: dict[str, object], error: str) -> None:
    result = grep(args, ctx)
    assert not result.ok
    assert error in (result.error or "")
