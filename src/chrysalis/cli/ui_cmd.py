"""``chrysalis ui [--port N] [--workspace DIR]``: the local dashboard (``chrysalis.server.dashboard``).

The settings say where the stores are (``$CHRYSALIS_HOME``) and which runtime database holds the
queue (``database_url``, which a workspace's config may set); the server is imported only here.
"""

from __future__ import annotations

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import UsageError

__all__ = ["ui_command"]


def ui_command(flags: SettingFlags, *, port: int) -> int:
    """Serve the dashboard on 127.0.0.1 until Ctrl-C; 0 when stopped, 2 for a bad port."""
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port} is not a port: use 1 to 65535, or 0 for a free one (the default).")
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    from chrysalis.server.dashboard.app import serve_dashboard

    return serve_dashboard(settings, port=port)
