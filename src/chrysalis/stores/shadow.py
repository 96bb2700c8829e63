"""A shadow git object store per workspace: cheap snapshots of the whole working tree, kept outside it.

File tools snapshot the one file they are about to write (``checkpoints.py``); a shell command or a
commit may change any file, so before and after each one the whole workspace is recorded as a git
tree in ``$CHRYSALIS_HOME/shadow/<hash of the workspace path>.git``. Git does the work: the shadow's
own index is a stat cache, so a snapshot rehashes only the files that changed since the last one,
and a file's contents are stored once however many snapshots contain it.

What a snapshot holds: every file git would see with ``git add -A`` under the project's own
``.gitignore`` files (and its ``.git/info/exclude``), tracked by the project or not. Ignored paths
(``.venv``, ``node_modules``, build outputs) are never read, so undo never touches them either.
Nested git repositories are left out (git could only record which commit they point at).

The project's repository is never written and its configuration never read: the shadow has its own
git dir and index, git runs with a clean environment (no system or global config, ``HOME`` set to the
shadow folder), with hooks, fsmonitor, filters and end-of-line conversion switched off, so nothing in
the project can make a snapshot run code, and a file's bytes come back exactly as they were.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import subprocess
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from chrysalis.errors import UsageError

__all__ = [
    "EMPTY_MODE",
    "MAX_NEW_BYTES",
    "MAX_NEW_FILES",
    "Change",
    "ShadowRepo",
    "SnapshotUnavailable",
]

MAX_NEW_FILES = 50_000
"""A snapshot that would add more files than this is refused (the command is not run)."""
MAX_NEW_BYTES = 512 * 1024 * 1024
"""... and so is one that would add more bytes than this: hashing them before every command is too slow."""
GIT_TIMEOUT = 300.0
EMPTY_MODE = "000000"
"""The mode ``git diff-tree`` gives a path that does not exist on that side."""

_SETTINGS = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.filemode=true",
    "core.ignorecase=false",
    "core.precomposeUnicode=false",
    "core.quotepath=false",
    "core.untrackedCache=true",
    "core.sparseCheckout=false",
    "gc.auto=0",
    "advice.addEmbeddedRepo=false",
)
# Highest-precedence attributes: no filter drivers, no end-of-line or encoding conversion, so what is
# hashed is the file's bytes and nothing the project's .gitattributes names can run.
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n"


class SnapshotUnavailable(UsageError):
    """The workspace could not be snapshotted, so a command that may change it is not run."""


@dataclass(frozen=True)
class Change:
    """One path that differs between two snapshots, with its state in the first one."""

    path: str
    """Relative to the workspace, with ``/`` separators."""
    mode: str
    """Its git mode before (``100644``, ``100755``, ``120000`` for a link), or ``EMPTY_MODE``: it did not exist."""
    blob: str
    """The object holding its contents before (meaningless when it did not exist)."""


class ShadowRepo:
    """The shadow git store of one workspace; every method takes the store's lock while it works."""

    def __init__(self, shadow_root: Path, workspace: Path, exclude: Sequence[Path] = ()) -> None:
        """The shadow of ``workspace`` (resolved) under ``shadow_root``.

        ``exclude``: folders never to snapshot when they lie inside the workspace (Chrysalis's own
        home, which holds this store).
        """
        self.workspace = workspace.resolve()
        key = hashlib.sha256(str(self.workspace).encode()).hexdigest()[:24]
        self.shadow_root = shadow_root
        self.git_dir = shadow_root / f"{key}.git"
        self._lock_path = shadow_root / f"{key}.lock"
        self._exclude = [p for p in exclude if _inside(self.workspace, p)]

    def snapshot(self, *, capped: bool = True) -> str:
        """Record the workspace as it is now; returns the tree's id.

        With ``capped``, a snapshot that would add more than ``MAX_NEW_FILES`` files or
        ``MAX_NEW_BYTES`` bytes is refused before anything is hashed. (The snapshot after a command
        is not capped: the command has run, and undo needs to know what it did.)

        Raises:
            SnapshotUnavailable: git is missing or failed, or the workspace is too big (the message
                says which folders are and how to leave them out).
        """
        with self._locked():
            self._ensure()
            nested = self._scan_new_files(capped)
            if nested:
                self._exclude_paths(nested)
            self._git("add", "-A")
            return self._git("write-tree").stdout.decode().strip()

    def changes(self, before: str, after: str) -> list[Change]:
        """The paths that differ between two snapshots, each with its state in ``before``."""
        if before == after:
            return []
        out = self._git("diff-tree", "-r", "-z", "--no-renames", before, after).stdout
        fields = [os.fsdecode(item) for item in out.split(b"\0")]
        changes: list[Change] = []
        for header, path in zip(fields[0::2], fields[1::2], strict=False):
            if not header.startswith(":"):
                continue
            src_mode, _dst_mode, src_blob, _dst_blob, _status = header[1:].split(" ")
            changes.append(Change(path=path, mode=src_mode, blob=src_blob))
        return changes

    def files(self, tree: str) -> dict[str, tuple[str, str]]:
        """Every file of snapshot ``tree``: its path, with its git mode and object id."""
        out = self._git("ls-tree", "-r", "-z", "--full-tree", tree).stdout
        found: dict[str, tuple[str, str]] = {}
        for item in out.split(b"\0"):
            if not item:
                continue
            header, path = item.split(b"\t", 1)
            mode, _kind, blob = header.decode().split(" ")
            found[os.fsdecode(path)] = (mode, blob)
        return found

    def read_blobs(self, blobs: Sequence[str]) -> dict[str, bytes]:
        """The contents of the given objects, read in one go."""
        unique = list(dict.fromkeys(blobs))
        if not unique:
            return {}
        out = self._git("cat-file", "--batch", stdin="".join(f"{b}\n" for b in unique).encode()).stdout
        found: dict[str, bytes] = {}
        pos = 0
        for blob in unique:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode().split(" ")
            if len(header) != 3:
                raise SnapshotUnavailable(f"The shadow store {self.git_dir} has lost object {blob}: {header}.")
            size = int(header[2])
            found[blob] = out[end + 1 : end + 1 + size]
            pos = end + 1 + size + 1
        return found

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Those of ``paths`` the workspace's ignore files (as they are now) leave out of snapshots."""
        if not paths:
            return set()
        stdin = b"".join(os.fsencode(p) + b"\0" for p in paths)
        out = self._git("check-ignore", "--no-index", "-z", "--stdin", stdin=stdin, ok=1).stdout
        return {os.fsdecode(item) for item in out.split(b"\0") if item}

    def head(self) -> str | None:
        """The commit the workspace's own repository has checked out, or None (no repository, no commit).

        Read-only: ``git rev-parse`` reads the refs and config of the project's repository; hooks
        and fsmonitor stay off and nothing is written.
        """
        try:
            done = subprocess.run(
                ["git", *_flags(), "rev-parse", "-q", "--verify", "HEAD^{commit}"],
                cwd=self.workspace,
                env=self._env(),
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        head = done.stdout.decode(errors="replace").strip()
        return head if done.returncode == 0 and head else None

    # -- the store itself ------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One snapshot at a time per workspace, across processes (they share the shadow index)."""
        try:
            self.shadow_root.mkdir(parents=True, exist_ok=True)
            handle = self._lock_path.open("a")
        except OSError as exc:
            raise SnapshotUnavailable(
                f"Cannot create the snapshot store {self.shadow_root}: {exc.strerror or exc}. "
                "Set CHRYSALIS_HOME to a folder you can write."
            ) from exc
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _ensure(self) -> None:
        """Create the shadow git dir on first use: bare, no templates (so no sample hooks), our attributes."""
        if (self.git_dir / "HEAD").is_file():
            return
        self._run(["git", "init", "-q", "--bare", "--template=", str(self.git_dir)], cwd=self.shadow_root)
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        (info / "attributes").write_text(_ATTRIBUTES)
        (info / "exclude").write_bytes(b"")
        self._exclude_paths([p.resolve().relative_to(self.workspace).as_posix() for p in self._exclude])
        (self.git_dir / "chrysalis-workspace").write_text(f"{self.workspace}\n")

    def _scan_new_files(self, capped: bool) -> list[str]:
        """Files ``git add -A`` would add now: check them against the caps; return the nested repositories."""
        argv = ["git", *self._repo_flags(), "ls-files", "-z", "-o", "--exclude-standard"]
        nested: list[str] = []
        count, size = 0, 0
        tops: Counter[str] = Counter()
        try:
            proc = subprocess.Popen(
                argv, cwd=self.workspace, env=self._env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError as exc:
            raise _git_missing(exc) from exc
        assert proc.stdout is not None
        with proc:
            for rel in _split_z(proc.stdout):
                if rel.endswith("/"):
                    nested.append(rel.rstrip("/"))
                    continue
                count += 1
                tops[rel.split("/", 1)[0]] += 1
                with contextlib.suppress(OSError):
                    size += (self.workspace / rel).lstat().st_size
                if capped and (count > MAX_NEW_FILES or size > MAX_NEW_BYTES):
                    proc.kill()
                    raise SnapshotUnavailable(_too_big(self.workspace, count, size, tops))
        if proc.returncode != 0:
            code = proc.returncode
            raise SnapshotUnavailable(f"Cannot list the files of {self.workspace} (git ls-files: exit {code}).")
        return nested

    def _exclude_paths(self, rels: Sequence[str]) -> None:
        """Leave these folders out of every later snapshot (nested repositories)."""
        exclude = self.git_dir / "info" / "exclude"
        known = set(exclude.read_bytes().splitlines()) if exclude.is_file() else set()
        patterns = (os.fsencode(f"/{_escape(rel)}/") for rel in rels if "\n" not in rel)
        lines = [line for line in patterns if line not in known]
        if lines:
            with exclude.open("ab") as handle:
                handle.write(b"".join(line + b"\n" for line in lines))

    def _repo_flags(self) -> list[str]:
        ignore = self.workspace / ".git" / "info" / "exclude"
        excludes = str(ignore) if ignore.is_file() else os.devnull
        return [
            f"--git-dir={self.git_dir}",
            f"--work-tree={self.workspace}",
            *_flags(),
            "-c",
            f"core.excludesFile={excludes}",
        ]

    def _git(self, *args: str, stdin: bytes | None = None, ok: int = 0) -> subprocess.CompletedProcess[bytes]:
        return self._run(["git", *self._repo_flags(), *args], cwd=self.workspace, stdin=stdin, ok=ok)

    def _run(
        self, argv: list[str], *, cwd: Path, stdin: bytes | None = None, ok: int = 0
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git; an exit code other than 0 and ``ok`` is a ``SnapshotUnavailable`` with git's message."""
        try:
            done = subprocess.run(
                argv, cwd=cwd, env=self._env(), input=stdin, capture_output=True, timeout=GIT_TIMEOUT, check=False
            )
        except OSError as exc:
            raise _git_missing(exc) from exc
        except subprocess.TimeoutExpired:
            raise SnapshotUnavailable(
                f"Snapshotting {self.workspace} took longer than {GIT_TIMEOUT:g}s and was stopped. "
                "Add big folders (data, build outputs, dependencies) to .gitignore."
            ) from None
        if done.returncode not in (0, ok):
            message = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
            what = next((a for a in argv[1:] if not a.startswith("-") and "=" not in a), "git")
            hint = " A file git cannot read can be left out with .gitignore." if what == "add" else ""
            raise SnapshotUnavailable(
                f"git {what} failed on the snapshot store of {self.workspace} ({self.git_dir}): {message}.{hint}"
            )
        return done

    def _env(self) -> dict[str, str]:
        """No inherited GIT_* variables, no system or global config: only what a snapshot needs."""
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.shadow_root),
            "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
        }


def _flags() -> list[str]:
    return [arg for setting in _SETTINGS for arg in ("-c", setting)]


def _git_missing(exc: OSError) -> SnapshotUnavailable:
    if isinstance(exc, FileNotFoundError):
        return SnapshotUnavailable(
            "git is not installed: Chrysalis snapshots the workspace with it before a command that may change "
            "files, so that undo can restore them. Install git (apt-get install git), or run at a level where "
            "commands see the workspace read-only."
        )
    return SnapshotUnavailable(f"Cannot run git to snapshot the workspace: {exc.strerror or exc}.")


def _too_big(workspace: Path, count: int, size: int, tops: Counter[str]) -> str:
    biggest = ", ".join(f"{name} ({n}+ files)" for name, n in tops.most_common(3))
    return (
        f"{workspace} has over {min(count, MAX_NEW_FILES):,} files / {size / 1_048_576:,.0f} MB that are not "
        f"ignored and not yet snapshotted (most under {biggest}); snapshotting them before a command "
        f"(so that undo can restore what it changes) is capped at {MAX_NEW_FILES:,} files and "
        f"{MAX_NEW_BYTES // 1_048_576} MB. Add the big folders to .gitignore, or run at a level where "
        "commands see the workspace read-only."
    )


def _split_z(stream: IO[bytes]) -> Iterator[str]:
    """NUL-separated paths from a pipe, decoded as the file system names them."""
    pending = b""
    while chunk := stream.read(65536):
        pending += chunk
        *done, pending = pending.split(b"\0")
        yield from (os.fsdecode(item) for item in done if item)
    if pending:
        yield os.fsdecode(pending)


def _escape(rel: str) -> str:
    """A path as a literal gitignore pattern."""
    return "".join(f"\\{c}" if c in "\\*?[]!# " else c for c in rel)


def _inside(root: Path, path: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return path.resolve() != root
