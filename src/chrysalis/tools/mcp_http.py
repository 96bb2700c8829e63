"""An MCP server over HTTP, reached through the egress check of the web tools (``chrysalis.tools.egress``).

Each request the MCP SDK sends (the session's and those of the redirects it follows, which it keeps
within the server's origin) passes ``egress.check``: http or https, no credentials in the URL, no host a
deny rule names, and the addresses the host resolves to, judged and then connected to, so a DNS answer
that changes between two requests (rebinding) cannot lead the session elsewhere. The name travels only
as the Host header and the TLS server name, as in ``web_fetch``.

Which hosts count is the policy's (``Policy.server_access``): the server's own host may be at a loopback
or private address (a server on 127.0.0.1 is the common case), because its entry names it, as an allow
rule would: the user's own ``mcp.json``, or a folder the user trusted (an untrusted folder starts no
server at all). A deny rule for the host wins over the entry.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from chrysalis.tools.egress import HostRules, check

if TYPE_CHECKING:
    import httpx2

__all__ = ["egress_client"]


def egress_client(hosts: HostRules, headers: dict[str, str] | None = None) -> httpx2.AsyncClient:
    """The SDK's HTTP client (its timeouts, its redirect rule), sending every request through the egress check."""
    import httpx2
    from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

    class EgressTransport(httpx2.AsyncBaseTransport):
        """Checks each request's URL, then connects to a judged address of its host (the next one if it fails)."""

        def __init__(self) -> None:
            self._inner = httpx2.AsyncHTTPTransport(trust_env=False)  # a proxy would resolve the name itself

        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            target = await asyncio.to_thread(check, str(request.url), hosts)  # resolving blocks: off the loop
            request.headers["Host"] = target.host_header
            if target.server_name:
                request.extensions = {**request.extensions, "sni_hostname": target.server_name}
            asked, failure = request.url, None
            try:
                for address in target.addresses:
                    request.url = asked.copy_with(host=address)
                    try:
                        return await self._inner.handle_async_request(request)
                    except httpx2.ConnectError as exc:
                        failure = exc
            finally:
                request.url = asked  # the SDK compares a redirect's origin with the URL it asked for
            assert failure is not None  # check() returns at least one address
            raise failure

        async def aclose(self) -> None:
            await self._inner.aclose()

    timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    return httpx2.AsyncClient(timeout=timeout, headers=headers, transport=EgressTransport(), trust_env=False)
