"""``chrysalis serve --mcp | --acp | --http``: pick the one protocol, load the settings, hand off to its server.

The servers live in ``chrysalis.server``; each is imported only when chosen, so ``--help`` stays fast.
"""

from __future__ import annotations

from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import UsageError

__all__ = ["serve_command"]


def serve_command(
    flags: SettingFlags, *, mcp: bool, acp: bool, http: bool, host: str, port: int, concurrency: int = 2
) -> int:
    """Serve one protocol until the client goes away (stdio) or Ctrl-C (HTTP)."""
    chosen = [name for name, on in (("--mcp", mcp), ("--acp", acp), ("--http", http)) if on]
    if len(chosen) != 1:
        given = " and ".join(chosen) if chosen else "none"
        raise UsageError(f"chrysalis serve needs exactly one of --mcp, --acp or --http (given: {given})")
    if concurrency < 0:
        raise UsageError(
            f"--concurrency {concurrency} is not allowed: give the runs the service executes at once, "
            "or 0 to leave them to `chrysalis worker`."
        )
    settings = load_settings(flags)
    if mcp:
        from chrysalis.server.mcp_server import serve_mcp

        return serve_mcp(settings)
    if acp:
        from chrysalis.server.acp.agent import serve_acp

        return serve_acp(settings)
    from chrysalis.server.http.service import serve_http

    return serve_http(settings, host=host, port=port, concurrency=concurrency)
