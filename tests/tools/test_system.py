from __future__ import annotations

import platform
from pathlib import Path

from chrysalis.tools.base import ToolContext
from chrysalis.tools.system import memory_info, system_stats


def test_system_stats_shape(ctx: ToolContext) -> None:
    result = system_stats({}, ctx)
    assert result.ok
    stats = result.result
    assert list(stats) == [
        "cpu_count",
        "load_average",
        "memory_total_mb",
        "memory_available_mb",
        "disk_total_gb",
        "disk_free_gb",
        "python",
        "platform",
    ]
    assert stats["cpu_count"] >= 1
    assert stats["python"] == platform.python_version()
    assert 0 < stats["disk_free_gb"] <= stats["disk_total_gb"]
    assert (system_stats.effect, system_stats.level) == ("read", 0)


def test_memory_info_parses_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:        8048576 kB\nMemFree:  1 kB\nMemAvailable:    4024288 kB\n")
    assert memory_info(meminfo) == {"memory_total_mb": 7860, "memory_available_mb": 3930}
    assert memory_info(tmp_path / "missing") == {"memory_total_mb": None, "memory_available_mb": None}


def test_system_stats_rejects_arguments(ctx: ToolContext) -> None:
    assert "Bad arguments for system_stats" in (system_stats({"verbose": True}, ctx).error or "")
