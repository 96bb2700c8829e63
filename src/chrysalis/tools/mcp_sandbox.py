"""A stdio MCP server confined as shell commands are: the same sandbox, argv builder and scrubbed environment.

The server's command line goes through ``sandbox.confine`` (bubblewrap or Landlock, the limits
prefix, the allow-listed ``command_env``) as ``exec COMMAND ARGS...``, so what it sees is what a
command sees (``sandbox.py``): the workspace (writable or read-only as ``Policy.server_access``
says), a minimal read-only system, the Python installations, a private ``/tmp`` and home, no
network unless its entry says ``"network": true`` in a trusted folder. Its environment is the
commands' plus the variables its entry's ``"env"`` names: a secret reaches it only when named.
Where no sandbox works the server is refused, unless ``--unsafe-no-sandbox``, as commands are.

The command must be where the sandbox can see it: on the system's ``PATH`` (``/usr/bin``...), in a
Python installation it binds, or in the workspace; a program under ``~/.local`` is hidden.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import replace
from pathlib import Path

from chrysalis.tools.mcp_config import McpServerAccess, McpServerConfig
from chrysalis.tools.sandbox import Confinement, SandboxOptions, SandboxSpec, SandboxUnavailable, confine

__all__ = ["confine_server"]


def confine_server(
    config: McpServerConfig, workspace: Path, access: McpServerAccess, options: SandboxOptions
) -> Confinement:
    """The server's confined argv and environment (call ``close`` once it has exited).

    Raises:
        SandboxUnavailable: no sandbox works here and ``--unsafe-no-sandbox`` was not given (the message says so).
    """
    assert config.command is not None  # a stdio server
    program = shutil.which(config.command) or config.command  # found on this PATH, not the sandbox's smaller one
    spec = SandboxSpec(workspace, writable=access.writable, options=replace(options, network=access.network))
    try:
        confined = confine(spec, "exec " + shlex.join([program, *config.args]))
    except SandboxUnavailable as exc:
        raise SandboxUnavailable(f"MCP servers run in the sandbox of commands. {exc}") from exc
    confined.env |= dict(config.env)  # named in its entry: passed, secrets included
    return confined
