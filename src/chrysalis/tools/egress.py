"""Where the agent's web tools may send a request: the egress check.

A model that reads a page can be told by that page to fetch ``http://127.0.0.1:8080/admin`` or the
cloud metadata address, and the answer comes back into its context. So before every request of
``web_fetch`` and ``web_search``, and again before every redirect, ``check`` judges the URL: the
scheme (http or https), the host, and *every* address the host resolves to. An address that is not
public (loopback, private, CGNAT, link-local, unique-local, multicast, unspecified, reserved, or an
IPv6 form of one of those) is refused unless an allow rule of the run names the host
(``web_fetch(domain:HOST)``): ``--yes`` does not change that, because no one is asked per call.

Below level 3 and without ``--yes``, a new domain is asked about before the call (``Policy.decide``)
and an approval is kept for the session (``HostRules.approved``); a redirect can ask no one, so a
redirect to a host neither approved nor allowed by a rule is refused before its name is resolved,
naming the URL the model can fetch itself (and be asked about).

The check resolves the name itself and returns the addresses it judged (``Target.addresses``); the
caller connects only to those (``Target.pinned``) and sends the name only as the Host header
and TLS server name, so a DNS answer that changes between the check and the connection (rebinding)
cannot lead the request elsewhere. Numeric spellings of an address (``2130706433``, ``0177.0.0.1``)
are judged by what the resolver makes of them, which is what a connection would reach.

The decision about a host belongs to the run's policy (``Policy.hosts`` builds ``HostRules``);
this module only applies it. It imports nothing of chrysalis, so both the policy and the tools'
context can carry a ``HostRules``.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Container
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "EgressError",
    "EgressRefused",
    "HostRules",
    "Target",
    "Unresolved",
    "check",
    "domain_to_ask",
    "host_matches",
    "why_not_public",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_DEFAULT_PORTS = {"http": 80, "https": 443}
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_METADATA = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})


class EgressError(Exception):
    """A request the web tools may not send (``EgressRefused``) or cannot address (``Unresolved``).

    EgressError
     ├── EgressRefused   the URL, the host or an address it resolves to is not allowed
     └── Unresolved      the host name has no address (a wrong name, or no network)
    """


class EgressRefused(EgressError):
    """Refused by the check; the message says why and which rule would allow it."""


class Unresolved(EgressError):
    """The host name did not resolve, so there is nothing to connect to."""


def host_matches(host: str, domain: str) -> bool:
    """Whether ``host`` is ``domain`` or one of its subdomains (the ``domain:`` rules' meaning), in any case."""
    host = host.lower().rstrip(".")
    domain = domain.lower().strip(".")
    return host == domain or host.endswith("." + domain)


@dataclass(frozen=True)
class HostRules:
    """What the run's ``[permissions]`` rules say about hosts (``domain:`` rules of ``web_fetch`` and ``*``).

    The default, no rules, is the strictest: public addresses only.
    """

    allowed: tuple[str, ...] = ()
    """Domains an allow rule names: these may be reached at any address, loopback and private included."""
    denied: tuple[str, ...] = ()
    """Domains a deny rule names: never reached, by the URL asked for or through a redirect."""
    asked: tuple[str, ...] = ()
    """Domains an ask rule names: a redirect there is refused, since no one can be asked in mid-fetch."""
    approved: Container[str] | None = None
    """The hosts the person approved in this session, when new domains are asked about (below level 3, without
    ``--yes``): a redirect to any other host is refused. None: any public host may be reached, redirects included."""

    def allows(self, host: str) -> bool:
        """An allow rule names ``host``, so its non-public addresses may be reached."""
        return any(host_matches(host, domain) for domain in self.allowed)

    def approves(self, host: str) -> bool:
        """``host`` may be reached without asking: new domains are not asked about, or it was approved or allowed."""
        return self.approved is None or host.lower().rstrip(".") in self.approved or self.allows(host)

    def refusing(self, host: str, *, redirect: bool) -> str | None:
        """The rule that refuses ``host`` (``deny``, or ``ask`` for a redirect), as written in config; None if none."""
        for action, domains in (("deny", self.denied), ("ask", self.asked if redirect else ())):
            domain = next((d for d in domains if host_matches(host, d)), None)
            if domain is not None:
                return f"{action} web_fetch(domain:{domain})"
        return None


@dataclass(frozen=True)
class Target:
    """A URL that passed the check, and the address to connect to: the one that was judged."""

    url: str
    """The URL as asked for (redirects are resolved against it)."""
    scheme: str
    host: str
    """The host name in ASCII (IDNA), without brackets: what the Host header and TLS server name carry."""
    port: int
    addresses: tuple[str, ...]
    """Every address the resolver gave, each checked, in its order: the request connects to these and nowhere
    else, trying the next when one cannot be reached (a name whose first answer is IPv6, on a machine without)."""
    path: str
    """The path and query, ``/`` at least."""

    @property
    def host_header(self) -> str:
        """The Host header: the name as asked for, with the port when it is not the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    def pinned(self, address: str) -> str:
        """The URL with ``address`` (one of ``addresses``) for the name: connecting to it cannot resolve again."""
        shown = f"[{address}]" if ":" in address else address
        return f"{self.scheme}://{shown}:{self.port}{self.path}"

    @property
    def server_name(self) -> str | None:
        """The TLS server name (SNI, and the name the certificate must carry); None when the host is an address."""
        return None if _literal(self.host) is not None else self.host


def check(url: str, hosts: HostRules, *, redirect: bool = False, origin: str = "") -> Target:
    """Judge ``url`` under ``hosts``: the scheme, the host and every address it resolves to.

    ``redirect`` says the URL came from a ``Location`` header: an ask rule then refuses it too, and so does
    a host not approved in the session (``HostRules.approves``) unless it is ``origin``, the host of the URL
    the tool was asked for (already decided), or an address literal that is not public (refused below).

    Raises:
        EgressRefused: not http(s), credentials in the URL, a rule refuses the host, a redirect leads to a host
            not approved, or an address is not public and no allow rule names the host; the message says which,
            and what would allow it.
        Unresolved: the host has no address.
    """
    scheme, host, port, path = _split(url)
    rule = hosts.refusing(host, redirect=redirect)
    if rule is not None:
        where = "a redirect to " if redirect else ""
        raise EgressRefused(f"refused: {where}{host} is forbidden by the rule {rule} in [permissions].")
    if redirect and host != origin and not hosts.approves(host) and not _inside(host):
        raise EgressRefused(
            f"refused: {host} was not approved in this session (a redirect to {url}); "
            f"fetch {url} itself to ask the user about {host}."
        )
    addresses = _resolve(host, port)
    if not hosts.allows(host):
        for address in addresses:
            why = why_not_public(address)
            if why is not None:
                raise EgressRefused(_refusal(url, host, address, why, redirect))
    return Target(url, scheme, host, port, tuple(dict.fromkeys(str(address) for address in addresses)), path)


def domain_to_ask(url: str | None) -> str | None:
    """The host a question about a new domain names for ``url`` (ASCII, lower case); None when there is none to ask.

    None for what the check refuses without asking anyone: not an http(s) URL, credentials in it, or an
    address literal that is not public (only an allow rule reaches one).
    """
    if url is None:
        return None
    try:
        host = _split(url)[1]
    except EgressRefused:
        return None
    return None if _inside(host) else host


def why_not_public(address: IPAddress) -> str | None:
    """What ``address`` is when it is not a public one ("a loopback address"), or None when it is public.

    IPv6 forms that carry an IPv4 address (mapped ``::ffff:a.b.c.d``, compatible ``::a.b.c.d``, 6to4,
    NAT64) are judged by the IPv4 address they carry, which is where a connection may end up.
    """
    if isinstance(address, ipaddress.IPv6Address):
        carried = _carried_v4(address)
        if carried is not None:
            why = why_not_public(carried)
            return None if why is None else f"{why} in IPv6 form ({carried})"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address" + (" (the cloud metadata service)" if address in _METADATA else "")
    if address.is_multicast:
        return "a multicast address"
    if address in _UNIQUE_LOCAL:
        return "a unique-local address" + (" (the cloud metadata service)" if address in _METADATA else "")
    if address in _CGNAT:
        return "a shared (CGNAT) address"
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    return None if address.is_global else "not a public address"


def _carried_v4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for, if any (``::`` and ``::1`` stand for none)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    packed = address.packed
    compatible = packed[:12] == bytes(12) and int(address) > 1
    if compatible or address in _NAT64:
        return ipaddress.IPv4Address(packed[12:])
    return None


def _split(url: str) -> tuple[str, str, int, str]:
    """Scheme, ASCII host, port and path of ``url``, or ``EgressRefused`` saying what is wrong with it."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise EgressRefused(f"refused: {url!r} has an invalid port.") from None
    if scheme not in _DEFAULT_PORTS or not host:
        raise EgressRefused(f"refused: {url!r} is not an http(s) address; give a full URL like https://example.com/.")
    if parts.username is not None or parts.password is not None:
        raise EgressRefused(f"refused: {url!r} carries credentials; the web tools send none.")
    try:
        ascii_host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        raise EgressRefused(f"refused: {host!r} is not a valid host name.") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return scheme, ascii_host.lower(), port or _DEFAULT_PORTS[scheme], path


def _resolve(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an address literal resolves to itself), in the resolver's order."""
    literal = _literal(host)
    if literal is not None:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unresolved(
            f"{host} could not be resolved ({exc}); the name may be wrong, or there is no network."
        ) from exc
    addresses: list[IPAddress] = []
    for family, _type, _proto, _name, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6):
            address = ipaddress.ip_address(str(sockaddr[0]).split("%")[0])
            if address not in addresses:
                addresses.append(address)
    if not addresses:
        raise Unresolved(f"{host} has no IPv4 or IPv6 address.")
    return addresses


def _inside(host: str) -> bool:
    """``host`` is written as an address that is not public (known without asking a resolver)."""
    literal = _literal(host)
    return literal is not None and why_not_public(literal) is not None


def _literal(host: str) -> IPAddress | None:
    """``host`` as an address when it is written as one in canonical form (``::1``, ``10.0.0.1``)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _refusal(url: str, host: str, address: IPAddress, why: str, redirect: bool) -> str:
    """The message for a non-public address: what it is, and the allow rule that would let the tools reach it."""
    what = f"{host} is {why}" if _literal(host) == address else f"{host} resolves to {address}, {why}"
    where = f" (a redirect to {url})" if redirect else ""
    return (
        f"refused: {what}{where}; the web tools reach only public addresses. "
        f"A [permissions] allow rule web_fetch(domain:{host}) allows it."
    )
