"""Which MCP servers a run may start: ``mcp.json`` files in Claude Code's format, plus our level keys.

Read in this order, a later server of the same name replacing an earlier one:

1. ``$CHRYSALIS_HOME/mcp.json`` (the user's own servers: always used);
2. the workspace's ``.mcp.json`` and then ``.chrysalis/mcp.json`` (the repository's servers);
3. servers handed in by a program (``AgentSession(mcp_servers=...)``, e.g. an editor's over ACP).

Starting a server runs a command, so a repository's own files count only in a folder the user
trusts (``chrysalis trust``, ``chrysalis.trust``), as Claude Code asks before using a project's
``.mcp.json``; otherwise those servers are kept aside as ``untrusted`` and never started.

Each server needs a security level for its tools (``"level"``, default 3: they can do anything),
lowered per tool with ``"tools": {"NAME": {"level": N}}``. The level also fixes the effect the
policy sees (0 read, 1 network, 2 write, 3 shell), so mode and confirmation rules apply as to ours.

A server started from a ``command`` runs in the sandbox of shell commands (``mcp_sandbox.py``): no
network unless its entry says ``"network": true`` (honoured in a trusted folder only), and only the
allow-listed environment plus the variables its ``"env"`` names: a mapping (``{"KEY": "${MY_KEY}"}``)
or a list of names passed through from Chrysalis's own environment (``["GITHUB_TOKEN"]``).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chrysalis.config import Settings
from chrysalis.errors import UsageError
from chrysalis.tools.base import Effect
from chrysalis.tools.egress import HostRules
from chrysalis.trust import is_trusted, read_trusted

__all__ = [
    "DEFAULT_LEVEL",
    "LEVEL_EFFECTS",
    "McpConfig",
    "McpServerAccess",
    "McpServerConfig",
    "load_mcp_config",
    "parse_servers",
    "project_files",
]

DEFAULT_LEVEL = 3
"""A server's tools can do anything its process can: the highest level unless config says less."""
LEVEL_EFFECTS: dict[int, Effect] = {0: "read", 1: "network", 2: "write", 3: "shell"}
"""The effect the policy sees for an MCP tool of each level: the most cautious one that level allows."""
DEFAULT_TIMEOUT = 30.0
"""Seconds a server has to start and answer ``initialize`` and ``tools/list``."""
_KEYS = ("type", "command", "args", "env", "url", "headers", "level", "tools", "timeout", "network")
"""The keys of a server entry we read. Other keys are left alone (other clients add their own, e.g.
``disabled``), unless one is a near miss of ours: a misspelt ``level`` would silently leave level 3."""
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_FORMAT = (
    'Expected {"mcpServers": {"NAME": {"command": "...", "args": ["..."], "env": {"KEY": "VALUE"}}}} '
    'or {"mcpServers": {"NAME": {"url": "http://..."}}}, with optional "level": 0-3 and '
    '"tools": {"TOOL": {"level": 0-3}}, "network": true (a trusted folder only) and "env" as a list of names.'
)


@dataclass(frozen=True)
class McpServerConfig:
    """One server as configured: how to reach it, where it was configured, and the levels its tools need."""

    name: str
    source: str
    """The file that configured it (``FILE``), or ``given by the caller``."""
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    level: int = DEFAULT_LEVEL
    tool_levels: Mapping[str, int] = field(default_factory=dict[str, int])
    timeout: float = DEFAULT_TIMEOUT
    network: bool = False
    """The server's sandbox lets it use the network (``"network": true``; honoured in a trusted folder only)."""

    @property
    def levels(self) -> frozenset[int]:
        """Every level its tools can have: the server's and each one ``tools`` sets."""
        return frozenset({self.level, *self.tool_levels.values()})

    def level_of(self, tool: str) -> int:
        """The level a call of ``tool`` needs: its own entry under ``tools``, else the server's."""
        return self.tool_levels.get(tool, self.level)

    @property
    def target(self) -> str:
        """The command line or URL, as ``mcp list`` shows it."""
        return self.url or " ".join([self.command or "", *self.args])

    def to_json(self) -> dict[str, Any]:
        """The server as ``chrysalis mcp list --json`` shows it (no env values: they may hold keys)."""
        shown: dict[str, Any] = {"name": self.name, "source": self.source, "level": self.level}
        if self.url:
            shown["url"] = self.url
        else:
            shown |= {"command": self.command, "args": list(self.args), "env": sorted(self.env)}
            shown |= {"network": True} if self.network else {}
        return shown


@dataclass(frozen=True)
class McpServerAccess:
    """What a server may do (``Policy.server_access``): a stdio one's sandbox, an HTTP one's hosts."""

    writable: bool
    network: bool
    hosts: HostRules = field(default_factory=HostRules)
    """The hosts a server over HTTP is reached through (``chrysalis.tools.mcp_http``)."""


@dataclass(frozen=True)
class McpConfig:
    """The servers a run starts, and those a folder that is not trusted configured (never started)."""

    servers: tuple[McpServerConfig, ...] = ()
    untrusted: tuple[McpServerConfig, ...] = ()
    trusted: bool = False
    """The workspace is a trusted folder: a server's ``"network": true`` counts (``Policy.server_access``)."""

    @property
    def trust_hint(self) -> str | None:
        """What to tell the user when the workspace's own servers were not started; None when all were."""
        if not self.untrusted:
            return None
        files = sorted({s.source for s in self.untrusted})
        names = ", ".join(s.name for s in self.untrusted)
        folder = Path(files[0]).parent
        folder = folder.parent if folder.name == ".chrysalis" else folder
        return (
            f"MCP servers {names} ({', '.join(files)}) were not started: {folder} is not a trusted folder, and "
            f"starting them runs commands from the repository. Run `chrysalis trust {folder}` if you trust it."
        )


def project_files(workspace: Path) -> tuple[Path, ...]:
    """The workspace's own MCP files, in the order they are read (the later one wins a shared name)."""
    return workspace / ".mcp.json", workspace / ".chrysalis" / "mcp.json"


def load_mcp_config(settings: Settings, extra: Mapping[str, Mapping[str, Any]] | None = None) -> McpConfig:
    """The servers of a run in ``settings.workspace``: user file, the workspace's files if trusted, ``extra``.

    Raises:
        UsageError: a file is not valid JSON or not in the expected shape (the message names the file).
    """
    servers: dict[str, McpServerConfig] = {s.name: s for s in _read(settings.home / "mcp.json")}
    project = [s for path in project_files(settings.workspace) for s in _read(path)]
    untrusted: list[McpServerConfig] = []
    trusted = is_trusted(settings.workspace, read_trusted(settings.home / "config.toml"))
    if project and trusted:
        servers |= {s.name: s for s in project}
    else:
        untrusted = list({s.name: s for s in project}.values())
    if extra:
        servers |= {s.name: s for s in parse_servers(extra, "given by the caller")}
    return McpConfig(servers=tuple(servers.values()), untrusted=tuple(untrusted), trusted=trusted)


def _read(path: Path) -> list[McpServerConfig]:
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}). Fix the syntax or delete the file. "
            + _FORMAT
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read as UTF-8 text ({exc}). Fix or delete the file.") from exc
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise UsageError(f"{path}: no 'mcpServers' object at the top. {_FORMAT}")
    return parse_servers(data.get("mcpServers", {}), str(path))


def parse_servers(servers: Mapping[str, Any], source: str) -> list[McpServerConfig]:
    """``{"NAME": {...}}`` as server configs; ``source`` names where they came from in errors.

    Raises:
        UsageError: a server's entry is not in the expected shape (the message names ``source`` and the key).
    """
    return [_server(name, entry, source) for name, entry in servers.items()]


def _server(name: str, entry: Any, source: str) -> McpServerConfig:
    where = f"{source}: mcpServers.{name}"
    if not isinstance(name, str) or not _NAME.match(name) or "__" in name:
        raise UsageError(
            f"{where}: a server name may use only letters, digits, '-' and single '_' "
            "(its tools are named mcp__NAME__TOOL). Rename it."
        )
    if not isinstance(entry, dict):
        raise UsageError(f"{where} must be an object. {_FORMAT}")
    _refuse_misspelt_keys(entry, where)
    kind = entry.get("type", "http" if "url" in entry else "stdio")
    if kind == "sse":
        raise UsageError(f"{where}: the 'sse' transport is not supported; use a streamable HTTP 'url' or a 'command'.")
    if kind not in ("stdio", "http", "streamable-http"):
        raise UsageError(f"{where}.type must be 'stdio' or 'http', not {kind!r}.")
    url = _opt_str(entry, "url", where)
    command = _opt_str(entry, "command", where)
    if (url is None) == (command is None):
        raise UsageError(f"{where} needs exactly one of 'command' (a program to start) or 'url'. {_FORMAT}")
    tools = entry.get("tools", {})
    if not isinstance(tools, dict) or not all(isinstance(v, dict) and set(v) <= {"level"} for v in tools.values()):
        raise UsageError(f'{where}.tools must map tool names to {{"level": 0-3}}, e.g. {{"search": {{"level": 0}}}}.')
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise UsageError(f"{where}.timeout must be a positive number of seconds, not {timeout!r}.")
    network = entry.get("network", False)
    if not isinstance(network, bool):
        raise UsageError(f"{where}.network must be true or false, not {network!r}.")
    return McpServerConfig(
        name=name,
        source=source,
        command=_expand(command) if command else None,
        args=tuple(_expand(a) for a in _str_list(entry, "args", where)),
        env=_env(entry, where),
        url=_expand(url) if url else None,
        headers={k: _expand(v) for k, v in _str_map(entry, "headers", where).items()},
        level=_level(entry.get("level", DEFAULT_LEVEL), f"{where}.level"),
        tool_levels={t: _level(v.get("level", DEFAULT_LEVEL), f"{where}.tools.{t}.level") for t, v in tools.items()},
        timeout=float(timeout),
        network=network,
    )


def _env(entry: Mapping[str, Any], where: str) -> dict[str, str]:
    """``"env"``: a mapping (values expanded), or a list of names passed through from this environment when set."""
    names = entry.get("env")
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return {n: os.environ[n] for n in names if n in os.environ}
    return {k: _expand(v) for k, v in _str_map(entry, "env", where).items()}


def _refuse_misspelt_keys(entry: Mapping[str, Any], where: str) -> None:
    for key in entry:
        if key not in _KEYS and (near := difflib.get_close_matches(str(key), _KEYS, n=1, cutoff=0.75)):
            raise UsageError(f"{where}: unknown key {key!r}; did you mean {near[0]!r}? Rename it in the file.")


def _level(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= DEFAULT_LEVEL:
        raise UsageError(f"{where} must be a security level from 0 to 3 (0 read-only ... 3 shell), not {value!r}.")
    return value


def _opt_str(entry: Mapping[str, Any], key: str, where: str) -> str | None:
    value = entry.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise UsageError(f"{where}.{key} must be a non-empty string, not {value!r}.")
    return value


def _str_list(entry: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f'{where}.{key} must be a list of strings, e.g. ["server.py", "--verbose"].')
    return value


def _str_map(entry: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise UsageError(
            f'{where}.{key} must be an object of strings, e.g. {{"API_KEY": "${{MY_KEY}}"}}'
            + (', or a list of names, e.g. ["API_KEY"].' if key == "env" else ".")
        )
    return value


def _expand(text: str) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from the environment, as Claude Code expands them in ``.mcp.json``."""
    return _VAR.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), text)
