"""Property tests for every parser a model or a repository can feed: no input crashes, no path escapes.

Each parser may fail only with its documented error, which the caller turns into a message:

- the path resolver (``tools/workspace.py``): ``ToolError``; a path it returns is inside the
  workspace, and a path it returns for a write has no symlink on the way and is not under ``.git``;
- the unified diff parser and applier (``tools/patch.py``): ``ToolError``; ``apply_patch`` as a tool
  answers every patch with a ``ToolResult`` and changes nothing outside the workspace;
- tool-call JSON (a tool's arguments, validated by ``ToolSpec``): a ``ToolResult``, never an exception;
- the text tool protocol (``llm/text_format.py``): ``parse_reply`` returns a call, an answer or
  ``Malformed``; ``AnswerStream`` takes any pieces;
- config files and ``CHRYSALIS_*`` variables (``config.py``): ``Settings`` or ``ConfigError``;
- subscription targets (``capabilities/subscriptions/following.py``): ``BadSubscription``; what an accepted one reads
  is inside the workspace.

Example counts stay modest (``max_examples`` 150) so the suite stays fast; no example database is
written (``database=None``), so runs leave nothing in the checkout.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chrysalis.capabilities.subscriptions.following import BadSubscription, parse_target
from chrysalis.capabilities.subscriptions.reading import read, section
from chrysalis.config import KEYS, Settings, env_var, load_settings
from chrysalis.errors import ConfigError
from chrysalis.llm.text_format import AnswerStream, FinalAnswer, Malformed, ToolCall, parse_reply
from chrysalis.stores import Stores, Subscription
from chrysalis.tools.base import ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.files import edit_file, list_dir, read_file, write_file
from chrysalis.tools.patch import apply_hunks, apply_patch, parse_patch
from chrysalis.tools.search import find, grep
from chrysalis.tools.workspace import normalize, resolve

SECRET = "TOPSECRET-51c2"
PROPS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
"""Fixtures here are module-wide and their state may carry over between examples, which is the point."""


@dataclass(frozen=True)
class Tree:
    root: Path
    ws: Path
    outside: Path

    def outside_state(self) -> dict[str, tuple[int, bytes]]:
        state: dict[str, tuple[int, bytes]] = {}
        for folder, dirs, names in os.walk(self.outside, followlinks=False):
            for name in [*dirs, *names]:
                path = Path(folder) / name
                info = path.lstat()
                data = path.read_bytes() if stat.S_ISREG(info.st_mode) else b""
                state[path.relative_to(self.outside).as_posix()] = (info.st_mode, data)
        return state


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """A workspace with links in and out, loops and a .git folder, beside an outside folder with a secret."""
    root = tmp_path_factory.mktemp("props")
    ws, outside = root / "ws", root / "outside"
    for path, text in {
        outside / "secret.txt": SECRET,
        outside / "sub" / "deep.txt": SECRET,
        outside / "linked.txt": "a file with a name inside too\n",
        ws / "a.py": "x = 1\n",
        ws / "src" / "b.txt": "one\ntwo\nthree\n",
        ws / ".git" / "config": "[core]\n",
    }.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (ws / "out").symlink_to(outside)
    (ws / "out.txt").symlink_to(outside / "secret.txt")
    (ws / "in").symlink_to(ws / "src")
    (ws / "loop").symlink_to(ws / "loop")
    os.link(outside / "linked.txt", ws / "hard.txt")  # readable by design; writes must not reach it
    return Tree(root=root, ws=ws.resolve(), outside=outside)


# -- Strategies -------------------------------------------------------------------------------------

_PARTS = st.sampled_from(
    [
        "..",
        ".",
        "",
        "a.py",
        "src",
        "b.txt",
        "out",
        "out.txt",
        "in",
        "loop",
        "hard.txt",
        ".git",
        ".GIT",
        "config",
        "hooks",
        "~",
        "~root",
        "$HOME",
        "${HOME}",
        "$(id)",
        "outside",
        "secret.txt",
        "new.txt",
        "\uff0e\uff0e",
        "\u202e",
        "\u200b",
        "\x00",
        "\\",
        "\n",
        "x" * 300,
        "é",
        "\ud800",
        ".chrysalis",
        "config.toml",
        "/",
    ]
)
PATHS = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(_PARTS, st.text(max_size=6)), max_size=8).map("/".join),
    st.lists(_PARTS, min_size=1, max_size=6).map(lambda parts: "/" + "/".join(parts)),
)
"""Paths a confused or hostile model might write: random text, and joins of the names that matter here."""


def _line(kind: str, body: str) -> str:
    return kind + body


_DIFF_LINES = st.one_of(
    st.builds(_line, st.sampled_from(["--- a/", "+++ b/", "--- ", "+++ "]), PATHS),
    st.just("--- /dev/null"),
    st.just("+++ /dev/null"),
    st.builds(
        lambda a, b, c, d: f"@@ -{a},{b} +{c},{d} @@",
        st.integers(-5, 10**12),
        st.integers(-5, 50),
        st.integers(-5, 50),
        st.integers(-5, 50),
    ),
    st.just("@@ -" + "9" * 5000 + " +1 @@"),
    st.builds(_line, st.sampled_from([" ", "-", "+", "\\", "diff ", ""]), st.text(max_size=20)),
    st.sampled_from(["-x = 1", " x = 1", "+x = 2", "-one", " two", "+TWO", "\\ No newline at end of file"]),
)
DIFFS = st.one_of(
    st.text(max_size=200),
    st.lists(_DIFF_LINES, max_size=14).map("\n".join),
    st.lists(_DIFF_LINES, max_size=14).map("\r\n".join),
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20) | PATHS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
"""Any JSON value (a model's tool arguments are one)."""


# -- The path resolver ------------------------------------------------------------------------------


@PROPS
@given(user_path=PATHS, must_exist=st.booleans(), for_write=st.booleans())
def test_resolve_never_escapes_and_fails_only_with_tool_error(
    tree: Tree, user_path: str, must_exist: bool, for_write: bool
) -> None:
    normalize(user_path)  # the policy's lexical form never fails either
    try:
        path = resolve(tree.ws, user_path, must_exist=must_exist, for_write=for_write)
    except ToolError as exc:
        refusal = str(exc)
    else:
        refusal = ""
    if refusal:
        return
    assert path.is_relative_to(tree.ws)
    assert path == Path(os.path.realpath(path))  # nothing left to follow
    if for_write:
        parts = path.relative_to(tree.ws).parts
        assert ".git" not in {p.casefold() for p in parts}
        here = tree.ws
        for part in parts:  # no symlink on the way, not even one that stays inside
            here = here / part
            assert not here.is_symlink()


# -- Subscription targets -----------------------------------------------------------------------------

TARGETS = st.one_of(
    PATHS,
    st.lists(st.one_of(_PARTS, st.sampled_from(["*", "**", "*.txt", "?", "[ab]*", "[!a]*", "**.py"])), max_size=6).map(
        "/".join
    ),
    st.builds(lambda query: "memory:" + query, st.text(max_size=30)),
    st.builds(lambda path: f"'{path}'", PATHS),
)
"""Subscription targets a person or a model might give: paths, globs, quoted ones, memory queries."""


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    with Stores.open(tmp_path_factory.mktemp("props-home")) as opened:
        yield opened


@PROPS
@given(target=TARGETS)
def test_a_subscription_target_is_refused_or_reads_only_the_workspace(tree: Tree, stores: Stores, target: str) -> None:
    try:
        kind, stored = parse_target(target, tree.ws)
    except BadSubscription:
        return
    reading = read(Subscription(1, kind, stored, 0.0), tree.ws, stores.memory)
    for item in reading.items:
        assert SECRET not in (item.content or "") and SECRET not in item.note
        if kind != "memory":
            assert (tree.ws / item.source).resolve().is_relative_to(tree.ws)
    assert SECRET not in section([reading], 6000).text


# -- Unified diffs ----------------------------------------------------------------------------------


@PROPS
@given(text=DIFFS, target=st.text(max_size=80))
def test_parse_patch_and_apply_hunks_fail_only_with_tool_error(text: str, target: str) -> None:
    try:
        patches = parse_patch(text)
    except ToolError:
        return
    assert patches
    for patch in patches:
        assert patch.path
        try:
            assert isinstance(apply_hunks(target, patch), str)
        except ToolError:
            pass


def _call(tree: Tree, spec: ToolSpec, args: dict[str, Any]) -> ToolResult:
    seen: list[Path] = []
    before = tree.outside_state()
    result = spec(args, ToolContext(workspace=tree.ws, before_write=seen.append, shell_timeout=5.0))
    assert isinstance(result, ToolResult)
    assert tree.outside_state() == before
    assert all(path.is_relative_to(tree.ws) for path in seen)
    assert not any(path.relative_to(tree.ws).parts[:1] == (".git",) for path in seen)
    assert SECRET not in json.dumps(result.for_model())
    return result


@PROPS
@given(text=DIFFS)
def test_apply_patch_tool_answers_every_patch_and_stays_inside(tree: Tree, text: str) -> None:
    apply_patch.write_targets(apply_patch.args.model_validate({"patch": text}))  # what the policy reads
    _call(tree, apply_patch, {"patch": text})


# -- Tool-call JSON ---------------------------------------------------------------------------------

_FILE_TOOLS = [read_file, write_file, edit_file, list_dir, find, grep, apply_patch]


@PROPS
@given(
    spec=st.sampled_from(_FILE_TOOLS),
    known=st.dictionaries(
        st.sampled_from(["path", "content", "old_text", "new_text", "pattern", "patch", "depth", "start_line"]),
        st.one_of(PATHS, JSON),
        max_size=4,
    ),
    extra=st.dictionaries(st.text(max_size=8), JSON, max_size=2),
)
def test_tool_arguments_of_any_shape_give_a_result(
    tree: Tree, spec: ToolSpec, known: dict[str, Any], extra: dict[str, Any]
) -> None:
    _call(tree, spec, {**known, **extra})


# -- The text tool protocol -------------------------------------------------------------------------

_TOOL_NAMES = ["read_file", "write_file", "shell"]
_OBJECTS = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"tool_to_use": st.one_of(st.sampled_from(_TOOL_NAMES), JSON), "parameters": st.one_of(JSON, st.text())}
    ),
    st.fixed_dictionaries({"final_answer": JSON}),
    st.fixed_dictionaries({"function": st.fixed_dictionaries({"name": st.text(max_size=10), "arguments": JSON})}),
)
REPLIES = st.one_of(
    st.text(max_size=200),
    st.builds(lambda before, obj, after: before + json.dumps(obj) + after, st.text(max_size=20), _OBJECTS, st.text()),
    st.builds(lambda obj: "```json\n" + json.dumps(obj) + "\n```", _OBJECTS),
    st.builds(lambda obj, cut: json.dumps(obj)[:cut], _OBJECTS, st.integers(0, 60)),
    st.integers(1, 3000).map(lambda depth: '{"tool_to_use": "shell", "parameters": ' + "[" * depth * 10),
)


@PROPS
@given(text=REPLIES)
def test_parse_reply_always_decides(text: str) -> None:
    reply = parse_reply(text, _TOOL_NAMES)
    assert isinstance(reply, ToolCall | FinalAnswer | Malformed)
    if isinstance(reply, ToolCall):
        assert reply.name in _TOOL_NAMES
        assert isinstance(reply.args, dict)


@PROPS
@given(text=REPLIES, cuts=st.lists(st.integers(0, 400), max_size=8))
def test_answer_stream_takes_any_pieces(text: str, cuts: list[int]) -> None:
    stream = AnswerStream()
    edges = sorted({0, len(text), *(c for c in cuts if c < len(text))})
    shown = "".join(stream.feed(text[a:b]) for a, b in itertools.pairwise(edges))
    assert isinstance(shown, str)


# -- Config files and the environment ---------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) or value is None:
        return json.dumps(value if value is not None else "")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    items = ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items())
    return "{" + items + "}"


TOML_DOCS = st.one_of(
    st.text(max_size=120),
    st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), JSON, max_size=4).map(
        lambda doc: "\n".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in doc.items())
    ),
    st.integers(1, 2000).map(lambda depth: "level = " + "[" * depth * 5 + "]" * depth * 5),
)


@pytest.fixture(scope="module")
def config_dirs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    home, ws = tmp_path_factory.mktemp("cfg-home"), tmp_path_factory.mktemp("cfg-ws")
    (ws / ".chrysalis").mkdir()
    return home, ws


def _load(home: Path, ws: Path, env: dict[str, str]) -> None:
    """Loading gives ``Settings`` or a ``ConfigError`` with a message; anything else fails the test."""
    try:
        loaded: object = load_settings({"workspace": str(ws)}, {"CHRYSALIS_HOME": str(home), **env})
    except ConfigError as exc:
        loaded = str(exc)
    assert isinstance(loaded, Settings) or (isinstance(loaded, str) and loaded)


@PROPS
@given(user=st.one_of(TOML_DOCS, st.binary(max_size=60)), project=st.one_of(TOML_DOCS, st.binary(max_size=60)))
def test_config_files_load_or_raise_config_error(config_dirs: tuple[Path, Path], user: Any, project: Any) -> None:
    home, ws = config_dirs
    for path, content in ((home / "config.toml", user), (ws / ".chrysalis" / "config.toml", project)):
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")
    _load(home, ws, {})


@PROPS
@given(env=st.dictionaries(st.sampled_from([k for k in KEYS if k != "workspace"]), st.text(max_size=40), max_size=4))
def test_environment_settings_load_or_raise_config_error(config_dirs: tuple[Path, Path], env: dict[str, str]) -> None:
    home, ws = config_dirs
    (home / "config.toml").write_text("")
    (ws / ".chrysalis" / "config.toml").write_text("")
    _load(home, ws, {env_var(key): value for key, value in env.items()})
