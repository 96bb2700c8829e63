from __future__ import annotations

import pytest

from chrysalis.errors import UsageError
from chrysalis.tools.base import ToolArgs
from chrysalis.tools.registry import TOOL_PROFILES, builtin_tools, profile_tools, select_tools

ORDER = [
    "read_file",
    "list_dir",
    "find",
    "grep",
    "edit_file",
    "write_file",
    "apply_patch",
    "shell",
    "run_tests",
    "git_status",
    "git_diff",
    "git_log",
    "git_commit",
    "system_stats",
    "web_fetch",
    "web_search",
]


def test_builtin_tools_in_order() -> None:
    tools = builtin_tools()
    assert list(tools) == ORDER
    assert all(name == spec.name for name, spec in tools.items())


def test_every_tool_has_a_short_description_and_described_arguments() -> None:
    for spec in builtin_tools().values():
        assert 10 < len(spec.description) <= 120, spec.name
        assert issubclass(spec.args, ToolArgs)
        schema = spec.json_schema()
        assert schema["type"] == "object"
        for field, prop in schema.get("properties", {}).items():
            assert prop.get("description"), f"{spec.name}.{field} has no description"
            assert len(prop["description"]) <= 80, f"{spec.name}.{field}"


def test_schemas_forbid_unknown_arguments() -> None:
    assert builtin_tools()["read_file"].json_schema()["additionalProperties"] is False


def test_select_tools_keeps_builtin_order() -> None:
    assert list(select_tools(["shell", "read_file"])) == ["read_file", "shell"]
    assert list(select_tools(None)) == ORDER
    assert select_tools([]) == {}


def test_select_unknown_tool_names_it_and_lists_the_known() -> None:
    with pytest.raises(
        UsageError, match=r"Unknown tool 'rm_rf'\. Known tools: read_file, list_dir,.*web_search\."
    ) as info:
        select_tools(["read_file", "rm_rf", "nope"])
    assert "Also unknown: 'nope'" in str(info.value)
    assert info.value.exit_code == 2


def test_profiles_name_only_real_tools() -> None:
    assert TOOL_PROFILES["all"] is None
    assert set(TOOL_PROFILES) == {"all", "coder", "editor", "researcher", "vcs"}
    for names in TOOL_PROFILES.values():
        select_tools(names)  # raises on a typo


def test_profile_contents() -> None:
    editor = profile_tools("editor")
    assert "edit_file" in editor
    assert "shell" not in editor
    assert "web_search" not in editor
    assert all(spec.effect in ("read", "network") for spec in profile_tools("researcher").values())
    assert list(profile_tools("vcs")) == ["git_status", "git_diff", "git_log", "git_commit"]
    assert list(profile_tools("all")) == ORDER
    with pytest.raises(
        UsageError, match=r"Unknown tool profile 'hacker'\. Known profiles: all, coder, editor, researcher, vcs"
    ):
        profile_tools("hacker")


def test_coder_profile_is_a_small_coding_set() -> None:
    assert list(profile_tools("coder")) == ["read_file", "list_dir", "grep", "edit_file", "write_file", "run_tests"]
