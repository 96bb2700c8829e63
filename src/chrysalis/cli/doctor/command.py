"""``chrysalis doctor``: is this machine ready, and for each thing that is not, the command that fixes it.

Sections, in order (``SECTIONS``): the model (weights, llama runtime, key, a local server
answering), keys (the approval key pair, provider keys), the sandbox (which one confines commands,
what it allows), the database (the SQLite stores, the runtime's database), MCP servers, and the
versions of the packages a bug report needs. Each problem line says what is wrong and what to run
or set. Adding a section is one function ``Settings -> Section`` (``sections``) and one line
in ``SECTIONS``.

Exit 0 when commands can run (in a sandbox, or unconfined because ``--unsafe-no-sandbox`` was
given where none works), 1 when they would be refused; the other problems are listed with their
fixes but leave the exit code alone, so a machine without weights or keys yet still passes (the
JSON's ``problems`` lists them all for scripts that want to be stricter). ``--json`` prints one object.
"""

from __future__ import annotations

import json
import platform
import re
import sys
from importlib import metadata
from typing import Any

from chrysalis.cli.doctor.database import database_section
from chrysalis.cli.doctor.model import keys_section, model_section
from chrysalis.cli.doctor.sections import Problem, Section, SectionCheck
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.tools.sandbox import UNAVAILABLE_FIX, SandboxOptions, describe
from chrysalis.tools.sandbox_env import ALLOWED_NAMES, ALLOWED_PREFIXES

__all__ = ["SECTIONS", "VERSIONED", "doctor_command", "doctor_report", "render_text", "run_sections"]

_GIB = 1 << 30
VERSIONED = (
    "chrysalis-forge",
    "pydantic-ai-slim",
    "llama-cpp-python",
    "dbos",
    "mcp",
    "agent-client-protocol",
    "typer",
    "sqlalchemy",
)
"""The packages whose versions doctor reports (read from their metadata: none is imported)."""
_PIN = re.compile(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^;\s]+)\s*(;.*)?$")


def sandbox_section(settings: Settings) -> Section:
    """Which sandbox confines commands here and what it allows; a problem when commands would be refused."""
    sandbox = describe(SandboxOptions.from_settings(settings), settings.workspace.resolve())
    sandbox["environment"] = sorted(ALLOWED_NAMES) + [f"{p}*" for p in ALLOWED_PREFIXES]
    sandbox["unsafe_no_sandbox"] = settings.unsafe_no_sandbox
    problems = []
    if sandbox["commands_refused"]:
        problems.append(
            Problem("no sandbox works here, so every command (shell, run_tests) is refused", UNAVAILABLE_FIX)
        )
    return Section(sandbox, _sandbox_lines(sandbox), problems)


def mcp_section(settings: Settings) -> Section:
    """The MCP servers of the mcp.json files, each started once to see that it answers; a problem when not ready."""
    from chrysalis.capabilities.mcp.servers import doctor_mcp

    servers = doctor_mcp(settings)
    if not servers:
        lines = ["mcp servers: none configured ($CHRYSALIS_HOME/mcp.json, .mcp.json, .chrysalis/mcp.json)"]
        return Section({"servers": servers}, lines)
    lines, problems = ["mcp servers:"], []
    for s in servers:
        tools = f", {s['tools']} tools" if s["state"] == "ready" else ""
        lines.append(f"  {s['name'] or 'mcp.json'} ({s['source'] or 'config'}): {s['state']}{tools}")
        if "fix" in s:
            problems.append(Problem(f"MCP server {s['name'] or '(file)'}: {s['state']}", s["fix"]))
    return Section({"servers": servers}, lines, problems)


def versions_section(_settings: Settings) -> Section:
    """Python's and the key packages' versions; a problem when one differs from what chrysalis-forge pins."""
    installed: dict[str, str | None] = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            installed[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed[name] = None
    problems = []
    for name, pin in _required_pins().items():
        if name in installed and installed[name] != pin:
            found = installed[name] or "is not installed"
            problems.append(
                Problem(
                    f"{name} {found}, but chrysalis-forge needs {name}=={pin}",
                    f"pip install '{name}=={pin}' (or make setup in a checkout)",
                )
            )
    shown = ", ".join(f"{name} {version or '-'}" for name, version in installed.items())
    return Section({"installed": installed}, [f"versions: {shown}"], problems)


def _required_pins() -> dict[str, str]:
    """``name -> version`` for each unconditional ``name==version`` of chrysalis-forge (extras left out)."""
    try:
        requires = metadata.requires("chrysalis-forge") or []
    except metadata.PackageNotFoundError:
        return {}
    pins = {}
    for requirement in requires:
        found = _PIN.match(requirement.strip())
        if found and not found.group(3):
            pins[found.group(1).lower()] = found.group(2)
    return pins


SECTIONS: tuple[tuple[str, SectionCheck], ...] = (
    ("model", model_section),
    ("keys", keys_section),
    ("sandbox", sandbox_section),
    ("database", database_section),
    ("mcp", mcp_section),
    ("versions", versions_section),
)
"""Every section, in the order shown; each is a ``SectionCheck``."""


def run_sections(settings: Settings) -> dict[str, Section]:
    """Every section of ``SECTIONS``, checked once, by name."""
    return {name: check(settings) for name, check in SECTIONS}


def doctor_report(settings: Settings, done: dict[str, Section] | None = None) -> dict[str, Any]:
    """Everything ``chrysalis doctor`` shows, as plain data (the ``--json`` object); ``done``: sections already run."""
    done = run_sections(settings) if done is None else done
    report: dict[str, Any] = {
        "chrysalis": _version("chrysalis-forge"),
        "python": f"{platform.python_version()} ({sys.executable})",
        "platform": platform.platform(),
        "home": f"{settings.home} ({settings.sources.get('home', 'default')})",
        "workspace": str(settings.workspace),
        "level": settings.level,
        "mode": settings.mode,
        "model": settings.model,
        "local_weights": _local_weights(settings),
        "provider_keys": done["keys"].facts["provider_keys"],
        "sandbox": done["sandbox"].to_json(),  # also under "sections": kept where scripts written before read it
        "mcp_servers": done["mcp"].facts["servers"] if "mcp" in done else [],
        "sections": {name: section.to_json() for name, section in done.items()},
        "problems": [{"section": name, **p.to_json()} for name, section in done.items() for p in section.problems],
    }
    return report


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _local_weights(settings: Settings) -> dict[str, bool]:
    from chrysalis.llm.local.catalog import LOCAL_MODELS
    from chrysalis.llm.local.weights import is_cached

    return {f"local:{name}": is_cached(info, settings.home) for name, info in LOCAL_MODELS.items()}


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


def render_text(report: dict[str, Any], sections: dict[str, Section]) -> str:
    """The report for a person: the facts, each section's lines, each problem with its fix, and a count."""
    lines = [
        f"chrysalis {report['chrysalis']}, python {report['python']}",
        f"platform: {report['platform']}",
        f"CHRYSALIS_HOME: {report['home']}",
        f"workspace: {report['workspace']} (level {report['level']}, mode {report['mode']})",
    ]
    for section in sections.values():
        lines += section.lines
        for problem in section.problems:
            lines += [f"  ✗ {problem.problem}", f"    fix: {problem.fix}"]
    count = len(report["problems"])
    lines.append(f"{count} problem(s) found." if count else "No problems found.")
    return "\n".join(lines)


def doctor_command(flags: SettingFlags, *, json_output: bool) -> int:
    """Print the report; exit 1 when commands would be refused here (other problems are listed, exit 0)."""
    settings = load_settings(flags)
    done = run_sections(settings)
    report = doctor_report(settings, done)
    print(json.dumps(report, indent=2) if json_output else render_text(report, done))
    return 1 if report["sandbox"]["commands_refused"] else 0
