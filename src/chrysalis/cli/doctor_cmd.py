"""``chrysalis doctor``: which sandbox confines commands here, what it allows, and the other facts a bug report needs.

Exit 0 when commands can run (in a sandbox, or unconfined because ``--unsafe-no-sandbox`` was
given where none works), 1 when they would be refused; ``--json`` prints one object.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from importlib import metadata
from typing import Any

from chrysalis.agent.mcp_tools import doctor_mcp
from chrysalis.config import Settings, load_settings
from chrysalis.llm.local.catalog import LOCAL_MODELS
from chrysalis.llm.local.weights import is_cached
from chrysalis.llm.providers import KEY_VARS
from chrysalis.tools.sandbox import SandboxOptions, describe
from chrysalis.tools.sandbox_env import ALLOWED_NAMES, ALLOWED_PREFIXES

__all__ = ["doctor_command", "doctor_report"]

_GIB = 1 << 30


def doctor_report(settings: Settings) -> dict[str, Any]:
    """Everything ``chrysalis doctor`` shows, as plain data."""
    options = SandboxOptions.from_settings(settings)
    sandbox = describe(options, settings.workspace.resolve())
    sandbox["environment"] = sorted(ALLOWED_NAMES) + [f"{p}*" for p in ALLOWED_PREFIXES]
    sandbox["unsafe_no_sandbox"] = settings.unsafe_no_sandbox
    try:
        version = metadata.version("chrysalis-forge")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {
        "chrysalis": version,
        "python": f"{platform.python_version()} ({sys.executable})",
        "platform": platform.platform(),
        "home": f"{settings.home} ({settings.sources.get('home', 'default')})",
        "workspace": str(settings.workspace),
        "level": settings.level,
        "mode": settings.mode,
        "model": settings.model,
        "local_weights": {f"local:{name}": is_cached(info, settings.home) for name, info in LOCAL_MODELS.items()},
        "provider_keys": {key: key in os.environ for key in KEY_VARS.values()},
        "sandbox": sandbox,
        "mcp_servers": doctor_mcp(settings),
    }


def _sandbox_lines(sandbox: dict[str, Any]) -> list[str]:
    active = sandbox["active"]
    if sandbox["commands_refused"]:
        lines = [f"sandbox: NONE WORKS: commands are refused. {sandbox['problem']}"]
    elif active == "none":
        lines = ["sandbox: none: commands run UNCONFINED (--unsafe-no-sandbox), with the filtered environment"]
    else:
        lines = [f"sandbox: {active} ({sandbox['version']}) at {sandbox['path']}"]
    for backend in sandbox["backends"]:
        state = "works" if backend["works"] else f"does not work: {backend['problem']}"
        lines.append(f"  {backend['kind']}: {state}")
    limits = sandbox["limits"]
    cgroup = "pids cgroup per command" if limits["pids_cgroup"] else "RLIMIT_NPROC"
    lines += [
        f"  workspace: {sandbox['workspace']} (read-only at level 1 and for the final check; "
        f"{', '.join(sandbox['protected'])} always read-only)",
        f"  read-only: {', '.join(sandbox['read_only'])}",
        f"  network: {'allowed (sandbox_network = true)' if sandbox['network'] else 'none'}; "
        f"private /tmp: {'yes' if sandbox['private_tmp'] else 'no'}; "
        f"own PID namespace: {'yes' if sandbox['pid_namespace'] else 'no'}",
        f"  limits: memory {limits['memory_bytes'] / _GIB:.1f} GiB per process, {limits['processes']} processes "
        f"({cgroup}), files {limits['file_bytes'] / _GIB:.1f} GiB, output {limits['output_bytes'] >> 20} MiB",
        f"  environment passed: {', '.join(sandbox['environment'])} (plus PATH, HOME, TMPDIR, VIRTUAL_ENV)",
    ]
    return lines


def _mcp_lines(servers: list[dict[str, Any]]) -> list[str]:
    """The MCP servers of ``mcp.json`` files: each one's state, and the fix when it is not ready."""
    if not servers:
        return ["mcp servers: none configured ($CHRYSALIS_HOME/mcp.json, .mcp.json, .chrysalis/mcp.json)"]
    lines = ["mcp servers:"]
    for s in servers:
        tools = f", {s['tools']} tools" if s["state"] == "ready" else ""
        fix = f"; fix: {s['fix']}" if "fix" in s else ""
        lines.append(f"  {s['name'] or 'mcp.json'} ({s['source'] or 'config'}): {s['state']}{tools}{fix}")
    return lines


def doctor_command(flags: dict[str, Any], *, json_output: bool) -> int:
    """Print the report; exit 1 when commands would be refused here."""
    report = doctor_report(load_settings(flags))
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        weights = [name for name, cached in report["local_weights"].items() if cached]
        keys = [name for name, present in report["provider_keys"].items() if present]
        lines = [
            f"chrysalis {report['chrysalis']}, python {report['python']}",
            f"platform: {report['platform']}",
            f"CHRYSALIS_HOME: {report['home']}",
            f"workspace: {report['workspace']} (level {report['level']}, mode {report['mode']})",
            f"model: {report['model']}; local weights fetched: {', '.join(weights) or 'none (chrysalis models fetch)'}",
            f"provider keys set: {', '.join(keys) or 'none'}",
            *_sandbox_lines(report["sandbox"]),
            *_mcp_lines(report["mcp_servers"]),
        ]
        print("\n".join(lines))
    return 1 if report["sandbox"]["commands_refused"] else 0
