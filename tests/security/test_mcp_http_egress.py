"""An MCP server over HTTP is reached through the egress check: its own host, at the addresses judged, nowhere else.

The client under test is the one the MCP capability gives the SDK (``chrysalis.tools.mcp_http.egress_client``),
with the hosts the policy gives a server (``Policy.server_access``). The loopback server, the faked resolver
(``dns``) and the second server come from ``test_egress``.
"""

from __future__ import annotations

import asyncio

import httpx2
import pytest

from chrysalis.tools.egress import EgressRefused
from chrysalis.tools.mcp_config import McpServerConfig
from chrysalis.tools.mcp_http import egress_client
from chrysalis.tools.policy import Policy
from chrysalis.tools.rules import Rule
from tests.security.test_egress import Server, dns, other, server

__all__ = ["dns", "other", "server"]  # the fixtures, imported to be used here


def _get(url: str, server_url: str, *rules: str) -> httpx2.Response:
    """GET ``url`` with the client of the MCP server configured at ``server_url``, under deny ``rules``."""
    policy = Policy(level=2, mode="code", rules=tuple(Rule.parse(r, "deny", "test") for r in rules))
    hosts = policy.server_access(McpServerConfig(name="web", source="test", url=server_url), trusted=True).hosts

    async def get() -> httpx2.Response:
        async with egress_client(hosts) as client:
            return await client.get(url)

    return asyncio.run(get())


def test_the_servers_own_host_is_reached_at_a_loopback_address(server: Server) -> None:
    url = f"http://127.0.0.1:{server.port}/mcp"
    assert _get(url, url).status_code == 200
    assert server.hits == [("/mcp", f"127.0.0.1:{server.port}")]


def test_a_named_server_is_reached_at_the_address_judged_with_its_name_as_host(
    server: Server, dns: dict[str, list[str]]
) -> None:
    dns["mcp.internal"] = ["127.0.0.1"]  # a name no real resolver knows: only the checked address can be reached
    url = f"http://mcp.internal:{server.port}/mcp"
    assert _get(url, url).status_code == 200
    assert server.hits == [("/mcp", f"mcp.internal:{server.port}")]


@pytest.mark.parametrize("rule", ["web_fetch(domain:127.0.0.1)", "*(domain:127.0.0.1)"])
def test_a_deny_rule_for_the_servers_host_wins_over_its_entry(server: Server, rule: str) -> None:
    url = f"http://127.0.0.1:{server.port}/mcp"
    with pytest.raises(EgressRefused, match=r"forbidden by the rule deny"):
        _get(url, url, rule)
    assert server.hits == []


def test_another_host_inside_is_refused(server: Server, other: Server, dns: dict[str, list[str]]) -> None:
    """Only the entry's host counts as named: a request elsewhere inside (another name) is refused."""
    dns["elsewhere.internal"] = ["127.0.0.1"]
    with pytest.raises(EgressRefused, match="loopback"):
        _get(f"http://elsewhere.internal:{other.port}/", f"http://127.0.0.1:{server.port}/mcp")
    assert other.hits == []


def test_credentials_in_the_url_are_refused(server: Server) -> None:
    url = f"http://user:secret@127.0.0.1:{server.port}/mcp"
    with pytest.raises(EgressRefused, match="credentials"):
        _get(url, url)
    assert server.hits == []
