"""The web tools' domains: what the rules say about hosts, and the ones the person approved in the session.

Like Claude Code, a domain the web tools have not reached yet is asked about once, below level 3 and
without ``--yes``, and a yes holds for the rest of the session:

    a deny rule names the host         refused, whatever else holds (``Policy.decide``, the egress check)
    an allow rule covers the call      no question (``web_fetch(domain:HOST)``, ``web_fetch``, ``*``)
    the session approved the host      no question (``ApprovedDomains``, kept by the session across its runs)
    level 3, or --yes                  no question for a public host; a private one still needs an allow rule
    otherwise                          asked, showing the domain and the URL; a refusal is the model's tool error

The memory is the session's (``AgentSession.domains``), handed to the ``Policy`` each run builds, so it
outlives the run and is never global. A host is remembered exactly as asked (``docs.python.org``
approves neither ``python.org`` nor ``www.python.org``), and only a yes is remembered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from urllib.parse import urlsplit

from chrysalis.tools.egress import HostRules, domain_to_ask
from chrysalis.tools.rules import Rule

__all__ = ["ApprovedDomains", "domain_question", "host_rules", "new_domain"]

_WEB_RULE_TOOLS = ("*", "web_fetch")
"""Whose ``domain:`` rules apply to both web tools' requests."""


class ApprovedDomains:
    """The hosts the person approved for the web tools in one session: the policy asks, the approval wrapper adds."""

    def __init__(self, hosts: Sequence[str] = ()) -> None:
        self._hosts = {_normal(host) for host in hosts}

    def __contains__(self, host: object) -> bool:
        return isinstance(host, str) and _normal(host) in self._hosts

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._hosts))

    def __len__(self) -> int:
        return len(self._hosts)

    def approve(self, host: str) -> None:
        """Remember that the person approved ``host`` for the rest of the session."""
        self._hosts.add(_normal(host))


def host_rules(rules: Sequence[Rule], approved: ApprovedDomains | None) -> HostRules:
    """The ``HostRules`` of ``rules`` (the ``domain:`` rules of ``web_fetch`` and ``*``), asking about new domains.

    ``approved`` is the session's memory when new domains are asked about (below level 3, without ``--yes``),
    else None. An allow rule for the whole of ``web_fetch`` (or ``*``) asks about no domain either.
    """
    domains: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    for rule in rules:
        if rule.tool in _WEB_RULE_TOOLS and rule.specifier and rule.specifier.startswith("domain:"):
            domains[rule.action].append(rule.specifier.removeprefix("domain:"))
    if any(r.action == "allow" and r.specifier is None and r.tool in _WEB_RULE_TOOLS for r in rules):
        approved = None
    return HostRules(
        allowed=tuple(domains["allow"]), denied=tuple(domains["deny"]), asked=tuple(domains["ask"]), approved=approved
    )


def server_hosts(rules: Sequence[Rule], url: str | None) -> HostRules:
    """The hosts an MCP server over HTTP at ``url`` is reached through (``chrysalis.tools.mcp_http``).

    Its own host at any address (its entry names it, as an allow rule would), unless a deny rule names it;
    new domains are not asked about: the SDK never leaves the server's origin.
    """
    rules_of_hosts = host_rules(rules, None)
    own = (urlsplit(url).hostname or "",) if url else ()
    return HostRules(allowed=(*rules_of_hosts.allowed, *own), denied=rules_of_hosts.denied)


def new_domain(url: str | None, hosts: HostRules) -> str | None:
    """The host of ``url`` to ask about before the call, or None: nothing to ask (see the module's table).

    None also when a rule denies the host (the egress check refuses it, unasked) or the URL is not one
    the check would send at all (its refusal says why).
    """
    host = domain_to_ask(url)
    if host is None or hosts.approves(host) or hosts.refusing(host, redirect=False) is not None:
        return None
    return host


def domain_question(tool: str, host: str, url: str) -> str:
    """Why the person is asked: the domain, the URL, and what a yes allows."""
    return (
        f"{tool!r} wants to reach {host}, a domain not approved in this session ({url}). "
        f"Approving allows {host} for the rest of the session."
    )


def _normal(host: str) -> str:
    return host.lower().rstrip(".")
