"""The settings table: every entry is read by every reader, and a bad value is refused alike by each source."""

from __future__ import annotations

import io
import json
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from chrysalis.cli.config_cmd import show_config
from chrysalis.cli.repl import LIVE_SETTINGS, SLASH_COMMANDS, Repl
from chrysalis.config import (
    CONCERNS,
    ENTRIES,
    KEYS,
    TABLE,
    Concern,
    Entry,
    SettingFlags,
    Settings,
    coerce_value,
    load_settings,
)
from chrysalis.config.concerns import GROUPS
from chrysalis.errors import ConfigError
from chrysalis.llm.testing import ScriptedModel, final


@pytest.fixture(autouse=True)
def in_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace is the current folder, so no reader needs a --workspace flag (which would hide the one tested)."""
    monkeypatch.chdir(workspace)


def toml_value(text: str) -> str:
    """``text`` as TOML: as it is when it is a TOML value (3, true, 0.5), else a quoted string."""
    try:
        tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return json.dumps(text)
    return text


def expected(entry: Entry[Any], source: str) -> Any:
    value = entry.coerce(entry.example)
    return tuple((*rule[:2], source) for rule in value) if entry.adds else value


def test_settings_flags_has_one_optional_field_per_setting_in_the_table_order() -> None:
    names = [item.name for item in fields(SettingFlags)]
    missing = [key for key in KEYS if key not in names]
    assert not missing, f"add `{missing[0]}: <raw types> | None = None` to SettingFlags (config/flags.py)"
    assert names == list(KEYS)
    assert all(item.default is None for item in fields(SettingFlags))


def test_every_example_differs_from_the_default_and_is_accepted() -> None:
    defaults = Settings()
    for entry in ENTRIES:
        assert entry.coerce(entry.example) != getattr(defaults, entry.name), entry.name


def from_user_file(entry: Entry[Any], home: Path, workspace: Path) -> tuple[Settings, str]:
    path = home / "config.toml"
    path.write_text(f"{entry.name} = {toml_value(entry.example)}\n")
    return load_settings(), f"{path}:1"


def from_trusted_project_file(entry: Entry[Any], home: Path, workspace: Path) -> tuple[Settings, str]:
    (home / "config.toml").write_text(f"trusted_folders = [{json.dumps(str(workspace))}]\n")
    path = workspace / ".chrysalis" / "config.toml"
    path.parent.mkdir()
    path.write_text(f"\n{entry.name} = {toml_value(entry.example)}\n")
    return load_settings(), f"{path}:2"


def from_env(entry: Entry[Any], home: Path, workspace: Path) -> tuple[Settings, str]:
    return load_settings(environ={"CHRYSALIS_HOME": str(home), entry.env: entry.example}), f"env {entry.env}"


def from_flag(entry: Entry[Any], home: Path, workspace: Path) -> tuple[Settings, str]:
    return load_settings(SettingFlags.from_mapping({entry.name: entry.example})), f"flag {entry.flag}"


READERS: dict[str, Callable[[Entry[Any], Path, Path], tuple[Settings, str]]] = {
    "user file": from_user_file,
    "project file": from_trusted_project_file,
    "env": from_env,
    "flag": from_flag,
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("entry", ENTRIES, ids=KEYS)
def test_every_entry_is_read_from_every_source_with_its_source(
    entry: Entry[Any], reader: str, chrysalis_home: Path, workspace: Path
) -> None:
    settings, source = READERS[reader](entry, chrysalis_home, workspace)
    assert getattr(settings, entry.name) == expected(entry, source)
    assert settings.sources[entry.name] == source


@pytest.mark.parametrize("entry", ENTRIES, ids=KEYS)
def test_config_show_lists_every_entry_with_its_value_and_source(entry: Entry[Any], chrysalis_home: Path) -> None:
    out = io.StringIO()
    flags = SettingFlags.from_mapping({entry.name: entry.example})
    assert show_config(flags, Console(file=out, width=400)) == 0
    [row] = [line for line in out.getvalue().splitlines() if line.startswith(f"│ {entry.name} ")]
    assert f"│ flag {entry.flag} " in row
    assert entry.concern in out.getvalue()


@contextmanager
def repl(out: io.StringIO) -> Iterator[Repl]:
    from chrysalis.agent.session import AgentSession

    made = Repl(AgentSession(load_settings(), model=ScriptedModel([final("ok")]).model()), Console(file=out, width=300))
    try:
        yield made
    finally:
        made.session.close()


@pytest.mark.parametrize("key", LIVE_SETTINGS)
def test_the_repl_shows_and_sets_its_settings_as_the_table_says(key: str) -> None:
    entry = TABLE[key]
    assert SLASH_COMMANDS[f"/{key}"].endswith(f"/{key} {entry.hint}")
    with repl(io.StringIO()) as it:
        it.handle(f"/{key} {entry.example}")
        assert getattr(it.session.settings, key) == entry.coerce(entry.example)
        assert it.session.settings.sources[key] == f"/{key}"


BAD_VALUES = [
    ("model", ":", "empty provider or name"),
    ("auto_models", "auto", "is not a 'provider:name' model"),
    ("base_url", "localhost:8080", ""),
    ("priority", " ", "empty"),
    ("prices", '{"m": {"input": 1}}', "needs exactly 'input' and 'output'"),
    ("mode", "yolo", ""),
    ("level", "7", ""),
    ("level", "two", "invalid literal"),
    ("yes", "maybe", ""),
    ("permissions", '{"maybe": ["shell"]}', "use the lists allow, ask and deny"),
    ("protect_tests", "maybe", ""),
    ("sandbox_network", "2", ""),
    ("unsafe_no_sandbox", "maybe", ""),
    ("judge", "openai:", "empty provider or name"),
    ("budget", "-1", ""),
    ("timeout", "0", ""),
    ("max_steps", "0", ""),
    ("workspace", "/definitely/not/here", "no such folder"),
    ("profile", "everything", ""),
    ("compact_at", "0.99", ""),
    ("memory_tokens", "-1", ""),
    ("subscription_chars", "200", ""),
    ("embeddings", "anthropic:claude-3-5-haiku-latest", "Anthropic has no embeddings endpoint"),
    ("daemon", "maybe", ""),
    ("database_url", "mysql://localhost/db", ""),
    ("telemetry", "loud", ""),
]


def refused(load: Callable[[], object]) -> str:
    with pytest.raises(ConfigError) as caught:
        load()
    return str(caught.value)


@pytest.mark.parametrize("source", ["user file", "env", "flag", "request field"])
@pytest.mark.parametrize(("key", "value", "why"), BAD_VALUES)
def test_a_bad_value_names_its_source_the_value_the_key_and_what_is_allowed(
    key: str, value: str, why: str, source: str, chrysalis_home: Path
) -> None:
    entry = TABLE[key]
    if source == "user file":
        path = chrysalis_home / "config.toml"
        path.write_text(f"{key} = {json.dumps(value)}\n")
        where, message = f"{path}:1", refused(load_settings)
    elif source == "env":
        where, message = f"env {entry.env}", refused(lambda: load_settings(environ={**_home(), entry.env: value}))
    elif source == "flag":
        where, message = f"flag {entry.flag}", refused(lambda: load_settings(SettingFlags.from_mapping({key: value})))
    else:
        where = f"request field {key!r}"
        message = refused(lambda: coerce_value(key, value, where))
    assert message.startswith(f"{where}: bad value {value!r} for {key!r}")
    assert why in message and message.endswith(f"Allowed: {entry.allowed}.")


def _home() -> dict[str, str]:
    import os

    return {"CHRYSALIS_HOME": os.environ["CHRYSALIS_HOME"]}


@pytest.mark.parametrize(
    ("line", "needle"),
    [("/mode yolo", "/mode: unknown mode 'yolo'. Allowed: ask, architect, code, semantic."), ("/level 7", "0 to 3")],
)
def test_the_repl_refuses_a_bad_value_naming_its_command(line: str, needle: str) -> None:
    out = io.StringIO()
    with repl(out) as it:
        it.handle(line)
        assert needle in out.getvalue() and it.session.settings == load_settings()


def test_a_mapping_of_flags_with_a_name_that_is_no_setting_is_refused() -> None:
    message = refused(lambda: load_settings({"levle": 3}))
    assert "unknown setting 'levle'" in message and "level" in message


def test_flags_written_out_for_the_queue_read_back_to_the_same_settings(workspace: Path) -> None:
    flags = SettingFlags(workspace=workspace, level="3", yes=True, auto_models=("a:b", "c:d"))
    back = SettingFlags.from_mapping(json.loads(json.dumps(flags.as_options())))
    assert load_settings(back) == load_settings(flags)


@pytest.mark.parametrize("concern", CONCERNS)
def test_each_concern_has_a_group_with_exactly_its_settings(concern: Concern) -> None:
    kind = GROUPS[concern]
    assert [item.name for item in fields(kind)] == [entry.name for entry in ENTRIES if entry.concern == concern]
    settings = load_settings({"level": 3, "max_steps": 7, "priority": "cheap"})
    grouped = getattr(settings, _PROPERTY[concern])
    assert isinstance(grouped, kind)
    assert all(getattr(grouped, item.name) == getattr(settings, item.name) for item in fields(kind))


_PROPERTY = {concern: concern.replace(" ", "_") for concern in CONCERNS}
"""The ``Settings`` property of each concern's group (``model choice`` is ``settings.model_choice``)."""
