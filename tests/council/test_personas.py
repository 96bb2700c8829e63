"""Personas as data: the built-ins, NAME.toml files, what replaces what, trust, and each malformed file's message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chrysalis.council import Persona, builtin_personas, load_personas, read_persona, workspace_persona_folder
from chrysalis.errors import ConfigError
from chrysalis.trust import add_trusted, is_trusted, read_trusted

CRITIC = 'priority = 0.5\nmode = "proactive_when_triggered"\nprompt = "You find holes."\ntriggers = ["Hole", "gap"]\n'


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text)
    return path


def test_the_builtins_are_seed_003s_panel() -> None:
    panel = {(p.name, p.priority, p.mode) for p in builtin_personas()}
    assert panel == {
        ("ada", 0.75, "can_interject"),
        ("lea", 0.65, "wait_for_mention"),
        ("phil", 0.70, "can_interject"),
        ("david", 0.90, "proactive_when_triggered"),
    }
    david = next(p for p in builtin_personas() if p.name == "david")
    assert {"sure", "certain", "obviously", "always", "never", "guarantee", "definitely", "100%"} <= set(david.triggers)
    assert all(p.source == "builtin" and p.triggers and p.prompt for p in builtin_personas())


def test_a_user_file_adds_a_persona_with_every_key(chrysalis_home: Path) -> None:
    path = write(
        chrysalis_home / "personas",
        "critic",
        CRITIC + 'model = "openai:gpt-4o-mini"\ntools = "researcher"\nname = "critic"\n',
    )
    panel = load_personas(chrysalis_home)
    assert [p.name for p in panel] == ["ada", "lea", "phil", "david", "critic"]
    assert panel[-1] == Persona(
        name="critic",
        priority=0.5,
        mode="proactive_when_triggered",
        prompt="You find holes.",
        model="openai:gpt-4o-mini",
        tools="researcher",
        triggers=("Hole", "gap"),
    )
    assert panel[-1].source == str(path)


def test_the_name_defaults_to_the_file_stem_and_a_builtins_name_replaces_it_in_place(chrysalis_home: Path) -> None:
    write(chrysalis_home / "personas", "DAVID", 'priority = 0.2\nmode = "can_interject"\nprompt = "Calm."\n')
    write(chrysalis_home / "personas", "bob", 'priority = 0.2\nmode = "can_interject"\nprompt = "Bob."\n')
    write(chrysalis_home / "personas", "al", 'priority = 0.2\nmode = "can_interject"\nprompt = "Al."\n')
    panel = load_personas(chrysalis_home)
    assert [p.name for p in panel] == ["ada", "lea", "phil", "DAVID", "al", "bob"]
    assert panel[3].priority == 0.2 and panel[3].source.endswith("DAVID.toml")


def test_two_files_of_one_folder_may_not_name_the_same_persona(chrysalis_home: Path) -> None:
    write(chrysalis_home / "personas", "a", 'name = "x"\npriority = 0.2\nmode = "can_interject"\nprompt = "A."\n')
    write(chrysalis_home / "personas", "b", 'name = "X"\npriority = 0.2\nmode = "can_interject"\nprompt = "B."\n')
    with pytest.raises(ConfigError, match=r"b\.toml: key 'name': 'X' is already the name of the persona in .*a\.toml"):
        load_personas(chrysalis_home)


def test_a_workspace_adds_personas_only_once_trusted(chrysalis_home: Path, workspace: Path) -> None:
    write(workspace_persona_folder(workspace), "critic", CRITIC)
    write(workspace_persona_folder(workspace), "ada", 'priority = 0.1\nmode = "can_interject"\nprompt = "Mine."\n')
    write(chrysalis_home / "personas", "critic", CRITIC.replace("0.5", "0.4"))
    untrusted = load_personas(chrysalis_home, workspace, trusted=False)
    assert [(p.name, p.priority) for p in untrusted][::4] == [("ada", 0.75), ("critic", 0.4)]
    add_trusted(chrysalis_home / "config.toml", workspace)
    trusted = is_trusted(workspace, read_trusted(chrysalis_home / "config.toml"))
    panel = load_personas(chrysalis_home, workspace, trusted)
    assert [(p.name, p.priority) for p in panel][::4] == [("ada", 0.1), ("critic", 0.5)]  # the workspace wins


def test_an_untrusted_workspaces_broken_file_is_not_even_read(chrysalis_home: Path, workspace: Path) -> None:
    write(workspace_persona_folder(workspace), "broken", "priority = [[[\n")
    assert len(load_personas(chrysalis_home, workspace, trusted=False)) == 4
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_personas(chrysalis_home, workspace, trusted=True)


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('priority = 1.5\nmode = "can_interject"\nprompt = "p"\n', [":1: key 'priority'", "from 0 to 1", "1.5"]),
        ('priority = true\nmode = "can_interject"\nprompt = "p"\n', [":1: key 'priority'"]),
        ('priority = 0.5\nmode = "shout"\nprompt = "p"\n', [":2: key 'mode'", "'wait_for_mention'", "'shout'"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = " "\n', [":3: key 'prompt'", "non-empty"]),
        ('priority = 0.5\nmode = "can_interject"\n', ["missing key 'prompt'"]),
        ('mode = "can_interject"\nprompt = "p"\n', ["missing key 'priority'"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = "p"\ncolour = 1\n', [":4: unknown key 'colour'", "prompt"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = "p"\ntriggers = "sure"\n', [":4: key 'triggers'", "list"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = "p"\ntriggers = ["ok", 3]\n', ["key 'triggers'"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = "p"\ntools = "root"\n', ["key 'tools'", "'researcher'"]),
        ('priority = 0.5\nmode = "can_interject"\nprompt = "p"\nmodel = "gpt"\n', ["key 'model'", "provider:name"]),
        ('name = "two words"\npriority = 0.5\nmode = "can_interject"\nprompt = "p"\n', [":1: key 'name'"]),
        ("priority = 0.5\nmode = \n", ["not valid TOML"]),
    ],
)
def test_a_malformed_file_names_the_file_line_and_key(tmp_path: Path, text: str, needles: list[str]) -> None:
    path = write(tmp_path, "critic", text)
    with pytest.raises(ConfigError) as caught:
        read_persona(path)
    assert str(caught.value).startswith(str(path))
    for needle in needles:
        assert needle in str(caught.value)


def test_a_file_named_unlike_a_persona_needs_a_name_key(tmp_path: Path) -> None:
    path = write(tmp_path, "my critic", 'priority = 0.5\nmode = "can_interject"\nprompt = "p"\n')
    with pytest.raises(ConfigError, match=r"my critic\.toml: missing key 'name', and the file's name 'my critic'"):
        read_persona(path)
    path.write_text('name = "critic"\n' + path.read_text())
    assert read_persona(path).name == "critic"


def test_a_file_that_is_not_utf8_says_so(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_bytes(b"prompt = '\xff'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_persona(path)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"priority": 2}, "priority must be a number from 0 to 1"),
        ({"mode": "loud"}, "mode must be one of"),
        ({"name": "a b"}, "name must be a letter"),
        ({"tools": "root"}, "tools must be a tool profile"),
        ({"triggers": ["ok", ""]}, "triggers must be a list"),
    ],
)
def test_a_persona_made_in_code_is_checked_as_a_file_is(changes: dict[str, Any], match: str) -> None:
    fields: dict[str, Any] = {"name": "x", "priority": 0.5, "mode": "can_interject", "prompt": "p"}
    with pytest.raises(ValueError, match=match):
        Persona(**(fields | changes))


def test_a_persona_made_in_code_gets_tuples_and_a_float_priority() -> None:
    persona = Persona(name="x", priority=1, mode="can_interject", prompt="p", triggers=["a"])  # type: ignore[arg-type]
    assert persona.triggers == ("a",) and isinstance(persona.priority, float) and hash(persona)
