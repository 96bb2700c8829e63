"""What a stdio MCP server's sandbox allows (``Policy.server_access``) and its confined command line and environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from chrysalis.errors import UsageError
from chrysalis.tools.mcp_config import McpServerAccess, McpServerConfig, parse_servers
from chrysalis.tools.mcp_sandbox import confine_server
from chrysalis.tools.policy import Policy
from chrysalis.tools.sandbox import SandboxOptions


def server(**entry: object) -> McpServerConfig:
    [config] = parse_servers({"s": {"command": "python3", **entry}}, "test")
    return config


@pytest.mark.parametrize(
    ("run_level", "mode", "entry", "writable"),
    [
        (3, "code", {}, True),  # default level 3
        (2, "code", {}, False),  # its tools (level 3) cannot be called at level 2
        (2, "code", {"level": 2}, True),  # level 2: each call confirmed, snapshotted
        (2, "code", {"tools": {"edit": {"level": 2}}, "level": 3}, True),
        (1, "code", {"level": 1}, False),
        (3, "code", {"level": 0}, False),  # read-only by its own entry
        (3, "code", {"level": 0, "tools": {"w": {"level": 3}}}, True),
        (3, "ask", {}, False),
        (3, "architect", {"level": 2}, False),
    ],
)
def test_the_workspace_is_writable_at_levels_2_to_3_for_a_server_that_writes(
    run_level: int, mode: str, entry: dict[str, object], writable: bool
) -> None:
    access = Policy(level=run_level, mode=mode).server_access(server(**entry), trusted=False)
    assert access == McpServerAccess(writable=writable, network=False)


def test_network_is_honoured_in_a_trusted_folder_and_refused_elsewhere() -> None:
    policy = Policy(level=3, mode="code")
    assert policy.server_access(server(network=True), trusted=True).network
    assert not policy.server_access(server(), trusted=True).network
    with pytest.raises(UsageError, match=r'"network": true.*chrysalis trust'):
        policy.server_access(server(network=True), trusted=False)


def test_a_non_boolean_network_is_refused_naming_the_key() -> None:
    with pytest.raises(UsageError, match=r"mcpServers\.s\.network must be true or false"):
        server(network="yes")


def test_the_environment_is_the_commands_plus_what_the_entry_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    monkeypatch.setenv("LANG", "C.UTF-8")
    access = McpServerAccess(writable=False, network=False)
    plain = confine_server(server(), tmp_path, access, SandboxOptions(unsafe_no_sandbox=True))
    named = confine_server(server(env=["GITHUB_TOKEN", "UNSET_NAME"]), tmp_path, access, SandboxOptions())
    try:
        assert "OPENAI_API_KEY" not in plain.env and "GITHUB_TOKEN" not in plain.env
        assert plain.env["LANG"] == "C.UTF-8" and plain.argv[-1].startswith("exec ")
        assert named.env["GITHUB_TOKEN"] == "ghp-secret" and "UNSET_NAME" not in named.env
        assert "OPENAI_API_KEY" not in named.env
    finally:
        plain.close()
        named.close()
