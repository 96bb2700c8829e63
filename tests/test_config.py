"""Settings: precedence, sources, and a clear error for every bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.config import DEFAULT_MODEL, TOOL_PROFILES, load_settings
from chrysalis.errors import ConfigError


def env(**extra: str) -> dict[str, str]:
    import os

    return {"CHRYSALIS_HOME": os.environ["CHRYSALIS_HOME"], **extra}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_say_they_are_defaults(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace}, environ=env())
    assert settings.model == DEFAULT_MODEL
    assert settings.level == 2 and settings.mode == "code"
    assert settings.sources["level"] == "default"


def test_precedence_flag_over_env_over_project_over_user(workspace: Path, chrysalis_home: Path) -> None:
    write(chrysalis_home / "config.toml", 'level = 0\nmode = "ask"\nmax_steps = 5\npriority = "cheap"\n')
    write(workspace / ".chrysalis" / "config.toml", 'level = 1\nmode = "architect"\nmax_steps = 6\n')
    env = {"CHRYSALIS_HOME": str(chrysalis_home), "CHRYSALIS_LEVEL": "2", "CHRYSALIS_MODE": "code"}
    settings = load_settings({"workspace": workspace, "level": "3"}, environ=env)
    assert settings.level == 3 and settings.sources["level"] == "flag --level"
    assert settings.mode == "code" and settings.sources["mode"] == "env CHRYSALIS_MODE"
    assert settings.max_steps == 6 and settings.sources["max_steps"].endswith(".chrysalis/config.toml:3")
    assert settings.priority == "cheap" and settings.sources["priority"].endswith("config.toml:4")


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("level", "7", "0 to 3"),
        ("level", "two", "0 to 3"),
        ("mode", "yolo", "ask, architect, code, semantic"),
        ("max_steps", "0", "positive integer"),
        ("budget", "-1", "non-negative"),
        ("timeout", "0", "positive number"),
        ("base_url", "localhost:8080", "http(s) URL"),
        ("database_url", "mysql://localhost/db", "postgresql://USER:PASSWORD@HOST/DB"),
        ("yes", "maybe", "true or false"),
        ("model", ":", "provider:name"),
    ],
)
def test_bad_flag_values_name_the_flag_and_what_is_allowed(workspace: Path, key: str, value: str, allowed: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace, key: value}, environ=env())
    message = str(caught.value)
    assert f"flag --{key.replace('_', '-')}" in message and repr(value) in message and allowed in message


def test_a_password_in_a_bad_url_is_not_echoed(workspace: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace, "database_url": "mysql://me:hunter2@db.example/runs"})
    assert "hunter2" not in str(caught.value) and "mysql://me:***@db.example/runs" in str(caught.value)


def test_bad_env_value_names_the_variable(workspace: Path) -> None:
    with pytest.raises(ConfigError, match="env CHRYSALIS_LEVEL"):
        load_settings({"workspace": workspace}, environ=env(CHRYSALIS_LEVEL="9"))


def test_bad_toml_names_the_file_and_line(workspace: Path) -> None:
    path = write(workspace / ".chrysalis" / "config.toml", 'level = 1\nmode = "ask\n')
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace}, environ=env())
    assert str(path) in str(caught.value) and "line 2" in str(caught.value)


def test_unknown_key_names_file_line_and_allowed_keys(workspace: Path) -> None:
    path = write(workspace / ".chrysalis" / "config.toml", "level = 1\n\nlevle = 2\n")
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace}, environ=env())
    message = str(caught.value)
    assert f"{path}:3" in message and "'levle'" in message and "max_steps" in message


def test_bad_value_in_file_names_file_line_and_key(workspace: Path) -> None:
    path = write(workspace / ".chrysalis" / "config.toml", 'mode = "code"\nlevel = 5\n')
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace}, environ=env())
    assert f"{path}:2" in str(caught.value) and "'level'" in str(caught.value)


def test_missing_workspace_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="existing folder"):
        load_settings({"workspace": tmp_path / "nope"}, environ=env())


def test_every_tool_profile_names_real_tools_and_is_a_valid_setting() -> None:
    from chrysalis.tools.registry import builtin_tools

    for profile, names in TOOL_PROFILES.items():
        assert load_settings({"profile": profile}, environ=env()).profile == profile
        assert names is None or set(names) <= set(builtin_tools())


def test_embeddings_default_to_lexical_and_take_the_embedded_model_or_a_provider(workspace: Path) -> None:
    settings = load_settings({"workspace": workspace}, environ=env())
    assert (settings.embeddings, settings.sources["embeddings"]) == ("lexical", "default")
    for given, kept in [
        (" LOCAL ", "local"),
        ("local:qwen2.5-coder-0.5b", "local:qwen2.5-coder-0.5b"),
        ("openai:text-embedding-3-small", "openai:text-embedding-3-small"),
        ("ollama:nomic-embed-text", "ollama:nomic-embed-text"),
    ]:
        settings = load_settings({"workspace": workspace}, environ=env(CHRYSALIS_EMBEDDINGS=given))
        assert (settings.embeddings, settings.sources["embeddings"]) == (kept, "env CHRYSALIS_EMBEDDINGS")
    on_server = load_settings({"workspace": workspace, "base_url": "http://127.0.0.1:9/v1", "embeddings": "bge-m3"})
    assert on_server.embeddings == "bge-m3"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("", "empty provider or name"),
        ("openai:", "empty provider or name"),
        (":bge", "empty provider or name"),
        ("anthropic:claude-3-5-haiku-latest", "Anthropic has no embeddings endpoint"),
        ("bge-m3", "no provider, and no base_url to send it to"),
        ("acme:embed-1", "no provider, and no base_url to send it to"),
    ],
)
def test_a_bad_embeddings_value_names_where_it_was_set_and_what_is_allowed(
    workspace: Path, chrysalis_home: Path, value: str, why: str
) -> None:
    path = write(chrysalis_home / "config.toml", f"level = 1\nembeddings = {value!r}\n")  # a project's is not trusted
    with pytest.raises(ConfigError) as caught:
        load_settings({"workspace": workspace}, environ=env())
    message = str(caught.value)
    assert f"{path}:2: bad value {value!r} for 'embeddings'" in message and why in message
    assert "'lexical' (the default), 'local' or 'local:NAME'" in message and "'openai:NAME'" in message
