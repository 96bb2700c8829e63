"""A snapshot of the machine (seed 004's system stats): CPUs, load, memory, disk, Python.

Agents use it to judge what a task may cost here (how many test workers to start, whether a big
build fits on the disk). It reads /proc and the standard library only, so it is cheap, read-only
and works without network or extra packages; values the platform lacks are reported as null.
"""

from __future__ import annotations

import os
import platform
import shutil
from pathlib import Path
from typing import Any

from chrysalis.tools.base import ToolArgs, ToolContext, ToolResult, ToolSpec

__all__ = ["SystemStatsArgs", "memory_info", "system_stats"]

_MEMINFO = Path("/proc/meminfo")
_GB = 1024**3


def memory_info(meminfo: Path = _MEMINFO) -> dict[str, float | None]:
    """Total and available memory in MB from /proc/meminfo (None where the file or field is missing)."""
    values: dict[str, float] = {}
    try:
        text = meminfo.read_text(encoding="ascii", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            values[key] = int(parts[0]) / 1024  # the file speaks kB
    total, available = values.get("MemTotal"), values.get("MemAvailable")
    return {
        "memory_total_mb": round(total) if total is not None else None,
        "memory_available_mb": round(available) if available is not None else None,
    }


class SystemStatsArgs(ToolArgs):
    """Arguments of system_stats (none)."""


def _system_stats(_args: SystemStatsArgs, ctx: ToolContext) -> ToolResult:
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):  # not available on this platform
        load = None
    disk = shutil.disk_usage(ctx.workspace)
    stats: dict[str, Any] = {
        "cpu_count": os.cpu_count(),
        "load_average": load,
        **memory_info(),
        "disk_total_gb": round(disk.total / _GB, 1),
        "disk_free_gb": round(disk.free / _GB, 1),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }
    return ToolResult.success(stats)


system_stats = ToolSpec(
    name="system_stats",
    description="Show CPU count, load average, memory, free disk space, Python version and platform.",
    args=SystemStatsArgs,
    effect="read",
    level=0,
    run=_system_stats,
)
