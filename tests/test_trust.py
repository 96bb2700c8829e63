"""A repository's own config cannot widen the agent's powers until the user trusts that folder."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from chrysalis.config import MODES, load_settings
from chrysalis.errors import ConfigError
from chrysalis.tools.policy import NarrowingRefused, Policy
from chrysalis.trust import add_trusted, remove_trusted
from tests.helpers import assert_clean_error, chrysalis

WIDENING = """\
level = 3
yes = true
base_url = "http://127.0.0.1:9/v1"
database_url = "postgresql://attacker@127.0.0.1:9/runs"
mode = "ask"

[permissions]
allow = ["shell(curl:*)"]
deny = ["shell(rm:*)"]
"""


def _env() -> dict[str, str]:
    return {"CHRYSALIS_HOME": os.environ["CHRYSALIS_HOME"]}


def _project(workspace: Path, text: str) -> Path:
    path = workspace / ".chrysalis" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_an_untrusted_folder_cannot_widen_and_is_told_which_keys_were_ignored(workspace: Path) -> None:
    path = _project(workspace, WIDENING)
    settings = load_settings({"workspace": workspace}, environ=_env())
    assert (settings.level, settings.yes, settings.base_url, settings.database_url) == (2, False, None, None)
    assert settings.mode == "ask"  # narrowing keys apply as always
    assert [(a, r) for a, r, _ in settings.permissions] == [("deny", "shell(rm:*)")]
    (warning,) = settings.warnings
    for named in ("level = 3", "yes", "base_url", "database_url", "permissions.allow", str(path), "chrysalis trust"):
        assert named in warning


def test_a_trusted_folder_and_its_subfolders_get_their_config(workspace: Path, chrysalis_home: Path) -> None:
    _project(workspace, WIDENING)
    assert add_trusted(chrysalis_home / "config.toml", workspace)
    settings = load_settings({"workspace": workspace}, environ=_env())
    assert (settings.level, settings.yes, settings.base_url) == (3, True, "http://127.0.0.1:9/v1")
    assert settings.database_url == "postgresql://attacker@127.0.0.1:9/runs"
    assert ("allow", "shell(curl:*)") in [(a, r) for a, r, _ in settings.permissions]
    assert settings.warnings == ()
    assert remove_trusted(chrysalis_home / "config.toml", workspace)
    assert load_settings({"workspace": workspace}, environ=_env()).level == 2


def test_an_untrusted_folder_may_lower_the_level(workspace: Path) -> None:
    _project(workspace, "level = 1\n")
    settings = load_settings({"workspace": workspace}, environ=_env())
    assert settings.level == 1
    assert settings.warnings == ()


def test_a_raise_up_to_the_users_own_level_is_no_raise(workspace: Path, chrysalis_home: Path) -> None:
    (chrysalis_home / "config.toml").write_text("level = 3\n")
    _project(workspace, "level = 3\n")
    assert load_settings({"workspace": workspace}, environ=_env()).warnings == ()


def test_a_repository_cannot_trust_itself(workspace: Path) -> None:
    path = _project(workspace, f'trusted_folders = ["{workspace}"]\nlevel = 3\n')
    with pytest.raises(ConfigError, match=f"{path}:1: trusted_folders can only be set"):
        load_settings({"workspace": workspace}, environ=_env())


def test_a_bad_permission_rule_names_file_and_rule(workspace: Path) -> None:
    path = _project(workspace, '[permissions]\ndeny = ["shell("]\n')
    with pytest.raises(ConfigError, match="shell\\(") as caught:
        load_settings({"workspace": workspace}, environ=_env())
    assert f"{path}:1" in str(caught.value)


def test_rules_from_every_source_add_up(workspace: Path, chrysalis_home: Path) -> None:
    (chrysalis_home / "config.toml").write_text('[permissions]\ndeny = ["web_fetch"]\n')
    _project(workspace, '[permissions]\nask = ["git_commit"]\n')
    env = {**_env(), "CHRYSALIS_PERMISSIONS": '{"deny": ["shell(sudo:*)"]}'}
    rules = [(a, r) for a, r, _ in load_settings({"workspace": workspace}, environ=env).permissions]
    assert rules == [("deny", "web_fetch"), ("ask", "git_commit"), ("deny", "shell(sudo:*)")]


def test_the_trust_command_keeps_the_rest_of_the_user_config(workspace: Path, chrysalis_home: Path) -> None:
    user = chrysalis_home / "config.toml"
    user.write_text('# my settings\nmodel = "openai:gpt-4o-mini"\n\n[prices]\n"m" = { input = 1, output = 2 }\n')
    done = chrysalis("trust", str(workspace))
    assert done.returncode == 0, done.stderr
    assert "Trusted" in done.stdout
    text = user.read_text()
    assert text.startswith("# my settings\n")
    data = tomllib.loads(text)
    assert data["trusted_folders"] == [str(workspace.resolve())]
    assert data["prices"] == {"m": {"input": 1, "output": 2}}
    assert "already trusted" in chrysalis("trust", str(workspace)).stdout
    assert str(workspace.resolve()) in chrysalis("trust", "--list").stdout
    assert "no longer trusted" in chrysalis("trust", "--remove", str(workspace)).stdout
    assert tomllib.loads(user.read_text())["trusted_folders"] == []


def test_the_trust_command_refuses_a_missing_folder(chrysalis_home: Path, tmp_path: Path) -> None:
    assert_clean_error(chrysalis("trust", str(tmp_path / "nope")), 2, "is not a folder")


def test_commands_show_the_warning(workspace: Path, chrysalis_home: Path) -> None:
    _project(workspace, "yes = true\n")
    done = chrysalis("config", "show", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert "not a trusted folder" in done.stderr


def test_an_untrusted_folder_may_not_choose_the_embedder_but_may_keep_the_default(
    workspace: Path, chrysalis_home: Path
) -> None:
    path = _project(workspace, 'embeddings = "openai:text-embedding-3-small"\n')
    settings = load_settings({"workspace": workspace}, environ=_env())
    assert settings.embeddings == "lexical"  # the notes are not sent to an endpoint the repository chose
    (warning,) = settings.warnings
    assert f"embeddings ({path}:1)" in warning and "chrysalis trust" in warning
    _project(workspace, 'embeddings = "local"\n')
    assert load_settings({"workspace": workspace}, environ=_env()).embeddings == "lexical"
    (chrysalis_home / "config.toml").write_text('embeddings = "local"\n')
    _project(workspace, 'embeddings = "Lexical"\n')  # narrowing to the default is always allowed
    narrowed = load_settings({"workspace": workspace}, environ=_env())
    assert (narrowed.embeddings, narrowed.warnings) == ("lexical", ())
    assert add_trusted(chrysalis_home / "config.toml", workspace)
    _project(workspace, 'embeddings = "openai:text-embedding-3-small"\n')
    assert load_settings({"workspace": workspace}, environ=_env()).embeddings == "openai:text-embedding-3-small"


# (the user's own config, the untrusted project's, the value that counts, whether the project's is withheld)
NARROWING_CASES = [
    ('mode = "ask"', 'mode = "code"', ("mode", "ask"), True),
    ('mode = "ask"', 'mode = "architect"', ("mode", "ask"), True),  # architect writes docs: more than ask
    ('mode = "architect"', 'mode = "ask"', ("mode", "ask"), False),
    ("", 'mode = "semantic"', ("mode", "semantic"), False),  # under the default code mode
    ("", "protect_tests = false", ("protect_tests", True), True),
    ("protect_tests = false", "protect_tests = true", ("protect_tests", True), False),
    ("protect_tests = false", "protect_tests = false", ("protect_tests", False), False),
    ("", "sandbox_network = true", ("sandbox_network", False), True),
    ("sandbox_network = true", "sandbox_network = true", ("sandbox_network", True), False),
    ("", "unsafe_no_sandbox = true", ("unsafe_no_sandbox", False), True),
    ("yes = true", "yes = false", ("yes", False), False),
    ('judge = "openai:gpt-4o-mini"', 'judge = "off"', ("judge", "openai:gpt-4o-mini"), True),
    ("", 'judge = "openai:gpt-4o-mini"', ("judge", "openai:gpt-4o-mini"), False),  # a judge only adds reviews
    ("level = 1", "level = 2", ("level", 1), True),
]


@pytest.mark.parametrize(("user", "project", "effective", "withheld"), NARROWING_CASES)
def test_an_untrusted_folder_may_narrow_each_security_setting_never_widen_it(
    workspace: Path, chrysalis_home: Path, user: str, project: str, effective: tuple[str, object], withheld: bool
) -> None:
    (chrysalis_home / "config.toml").write_text(user + "\n")
    path = _project(workspace, project + "\n")
    settings = load_settings({"workspace": workspace}, environ=_env())
    key, value = effective
    assert getattr(settings, key) == value
    if withheld:
        (warning,) = settings.warnings
        assert f"{key} = " in warning and f"({path}:1)" in warning
    else:
        assert settings.warnings == ()


@pytest.mark.parametrize("parent", MODES)
@pytest.mark.parametrize("child", MODES)
def test_the_clamp_and_the_policy_agree_on_which_modes_narrow(
    workspace: Path, chrysalis_home: Path, parent: str, child: str
) -> None:
    """One rule: a mode an untrusted folder may choose is exactly one a sub-agent or a request may narrow to."""
    (chrysalis_home / "config.toml").write_text(f'mode = "{parent}"\n')
    _project(workspace, f'mode = "{child}"\n')
    clamp_keeps = load_settings({"workspace": workspace}, environ=_env()).mode == child
    policy = Policy(level=2, mode=parent)
    assert clamp_keeps == (child in policy.modes_within())
    if not clamp_keeps:
        with pytest.raises(NarrowingRefused):
            policy.narrowed(mode=child)


def test_a_bad_value_in_an_untrusted_folder_is_reported_not_withheld(workspace: Path) -> None:
    path = _project(workspace, 'mode = "yolo"\n')
    with pytest.raises(ConfigError, match=f"{path}:1: bad value 'yolo' for 'mode'"):
        load_settings({"workspace": workspace}, environ=_env())
