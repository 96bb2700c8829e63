"""What a confined command sees of the machine: the minimal system and the Pythons a project needs.

Kept apart from ``sandbox.py`` (which sandbox works, and the argv that confines a command) because
it is the one part that reads the host: the system folders and files every command gets
(``SYSTEM_DIRS``, ``ETC_FILES``), the Python installations it gets read-only (the workspace's venv
and the one it came from, an activated ``$VIRTUAL_ENV``, the interpreter running Chrysalis), and the
``PATH`` that keeps only what it can see. Both bubblewrap (bind mounts) and Landlock (read rules)
are built from these lists, and ``chrysalis doctor`` reports them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from pathlib import Path

__all__ = ["ETC_FILES", "SYSTEM_DIRS", "python_dirs", "search_path", "system_paths"]

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "passwd",
    "group",
    "hosts",
    "nsswitch.conf",
    "host.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "crypto-policies",
    "localtime",
    "timezone",
    "protocols",
    "services",
    "mime.types",
    "os-release",
    "debian_version",
    "gitconfig",
    "inputrc",
    "terminfo",
    "bash.bashrc",
    "profile",
)


def _venv_of(folder: Path) -> Path | None:
    return folder if (folder / "pyvenv.cfg").is_file() else None


def _workspace_venv(workspace: Path) -> Path | None:
    return next((v for v in (workspace / n for n in (".venv", "venv", "env")) if _venv_of(v)), None)


def _host_venv() -> Path | None:
    raw = os.environ.get("VIRTUAL_ENV")
    return _venv_of(Path(raw)) if raw and Path(raw).is_absolute() else None


def _prefix_dirs(prefix: Path) -> list[Path]:
    """The parts of a Python installation an interpreter needs: ``bin`` and ``lib`` (not the whole prefix)."""
    if not any((prefix / "lib").glob("python3*")):
        return []  # not a Python prefix: bind nothing rather than a stranger's folder
    return [prefix / sub for sub in ("bin", "lib", "lib64") if (prefix / sub).is_dir()]


def _base_prefix(venv: Path) -> Path | None:
    with contextlib.suppress(OSError):
        for line in (venv / "pyvenv.cfg").read_text().splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                return Path(value.strip()).parent
    return None


def _under(path: Path, roots: tuple[str, ...] | list[Path]) -> bool:
    """Whether ``path`` is one of ``roots`` or inside one (by name: both are absolute and normalised)."""
    text = str(path)
    return any(text == str(r) or text.startswith(str(r).rstrip("/") + "/") for r in roots)


def python_dirs(workspace: Path) -> list[Path]:
    """Python installations bound read-only: the venvs a command may use and the prefixes they come from."""
    venvs = [v for v in (_workspace_venv(workspace), _host_venv()) if v is not None]
    if sys.prefix != sys.base_prefix:
        venvs.append(Path(sys.prefix))
    dirs: list[Path] = []
    for venv in venvs:
        dirs.append(venv)
        base = _base_prefix(venv)
        dirs.extend(_prefix_dirs(base) if base else [])
    dirs.extend(_prefix_dirs(Path(sys.base_prefix)))
    kept = [d for d in dict.fromkeys(dirs) if not _under(d, SYSTEM_DIRS) and not _under(d, [workspace])]
    return [d for d in kept if not _under(d, [o for o in kept if o != d])]  # drop those inside another


def search_path(workspace: Path, *, confined: bool = True) -> tuple[str, str | None]:
    """``PATH`` inside the sandbox, and ``VIRTUAL_ENV``: the workspace's venv first, Chrysalis's own last.

    A confined command gets only the entries it can see (the system, the Pythons, the workspace):
    under Landlock a folder it may not read would stop the search with "Permission denied".
    """
    venv = _workspace_venv(workspace) or _host_venv()
    entries = [str(venv / "bin")] if venv else []
    entries += [e for e in os.environ.get("PATH", os.defpath).split(os.pathsep) if e]
    if sys.prefix != sys.base_prefix:
        entries.append(str(Path(sys.prefix) / "bin"))
    if confined:
        visible = [*map(Path, SYSTEM_DIRS), *python_dirs(workspace), workspace]
        entries = [e for e in entries if Path(e).is_absolute() and _under(Path(e), visible)]
    return os.pathsep.join(dict.fromkeys(entries)), str(venv) if venv else None


@functools.cache
def system_paths() -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """(symlinks as (target, path), read-only paths) of the minimal system every command sees."""
    links: list[tuple[str, str]] = []
    paths: list[str] = []
    etc = [f"/etc/{name}" for name in ETC_FILES] + sorted(str(p) for p in Path("/etc").glob("python3*"))
    for path in map(Path, (*SYSTEM_DIRS, *etc)):
        if path.is_symlink():
            links.append((str(path.readlink()), str(path)))
        elif path.exists():
            paths.append(str(path))
    return tuple(links), tuple(paths)
