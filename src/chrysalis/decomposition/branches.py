"""Branches: a leaf's own copy of the workspace, and its edits merged back file by file, three ways.

The leaves of one split run at the same time. In one shared folder, two leaves that change the same
file overwrite each other, and a rollback that puts back one leaf's files can undo a sibling's
edit. So a leaf that may write runs in a **branch**: a copy of its parent's workspace, made from a
snapshot (the files ``git add -A`` would see; ignored folders at the top, such as ``.venv`` or
``node_modules``, are linked rather than copied, so the leaf's tests still find their
dependencies). What the leaf changed is the difference between the copy and that snapshot.

``merge`` brings a branch's edits into a workspace as a three-way merge per file (``git merge-file``:
the branch's base, the workspace as it is now, the branch): edits to different lines of a file
combine; edits to the same lines are a conflict, written into the file with both sides between
markers, so neither side's edit is ever lost or silently overwritten. A file one side deleted and
the other changed keeps the changed version; a binary file changed on both sides keeps the
workspace's and writes the branch's beside it (``NAME.<label>``). Each conflict is reported, for a
leaf of its own to resolve (``execute.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from chrysalis.errors import ChrysalisError
from chrysalis.stores.putback import GITLINK, safe_target, write_bytes
from chrysalis.stores.shadow import ShadowRepo

__all__ = ["Branch", "Conflict", "FileChange", "MergeReport", "has_markers", "merge"]

SYMLINK = "120000"
_BLOBS_PER_READ = 500
_MARKERS = (b"<<<<<<< ", b">>>>>>> ")


@dataclass(frozen=True)
class FileChange:
    """One file a branch changed: its bytes before (None: it did not exist) and after (None: deleted)."""

    path: str
    base: bytes | None
    after: bytes | None
    mode: str
    """The git mode it has in the branch (``100644``, ``100755``, ``120000`` for a link)."""


@dataclass(frozen=True)
class Conflict:
    """A file whose merge needs a decision: both sides changed the same lines, or one deleted it, or it is binary."""

    path: str
    kind: Literal["lines", "deleted", "binary"]
    label: str
    """The branch whose edit met the workspace's."""

    def describe(self) -> str:
        """One line for a person or for the leaf that resolves it."""
        if self.kind == "lines":
            return f"{self.path}: the same lines were changed in the workspace and by {self.label} (see the markers)"
        if self.kind == "deleted":
            return f"{self.path}: deleted on one side and changed on the other; the changed version was kept"
        return f"{self.path}: binary, changed on both sides; {self.label}'s version is in {self.path}.{self.label}"


@dataclass
class MergeReport:
    """What a merge did: the files it wrote, and the conflicts it left for someone to resolve."""

    applied: list[str] = field(default_factory=list[str])
    conflicts: list[Conflict] = field(default_factory=list[Conflict])


class Branch:
    """A copy of ``source``'s workspace in a temporary folder, for one leaf to change as it likes."""

    def __init__(self, source: ShadowRepo, label: str) -> None:
        """Copy ``source.workspace`` as a snapshot of it sees it now; ``label`` names the branch in merges.

        Raises:
            SnapshotUnavailable: git is missing, or the workspace is too big to snapshot.
        """
        self.label = label
        self._source = source
        self._base = source.files(source.snapshot())
        self._folder = Path(tempfile.mkdtemp(prefix="chrysalis-branch-"))
        self.path = self._folder / "work"
        self.path.mkdir()
        try:
            self._copy()
            self._linked = self._link_ignored()
        except BaseException:
            self.discard()
            raise
        self.shadow = ShadowRepo(self._folder / "shadow", self.path)

    def changes(self) -> list[FileChange]:
        """Every file the branch changed since it was made (linked folders are not the branch's)."""
        after = self.shadow.files(self.shadow.snapshot(capped=False))
        paths = sorted(
            p
            for p in set(self._base) | set(after)
            if p.split("/", 1)[0] not in self._linked and self._base.get(p) != after.get(p)
        )
        old = _read(self._source, [self._base[p][1] for p in paths if p in self._base])
        new = _read(self.shadow, [after[p][1] for p in paths if p in after])
        return [
            FileChange(
                path,
                old[self._base[path][1]] if path in self._base else None,
                new[after[path][1]] if path in after else None,
                (after.get(path) or self._base[path])[0],
            )
            for path in paths
        ]

    def discard(self) -> None:
        """Delete the copy and its snapshot store."""
        shutil.rmtree(self._folder, ignore_errors=True)

    def _copy(self) -> None:
        files = {path: entry for path, entry in self._base.items() if entry[0] != GITLINK}
        contents = _read(self._source, [blob for _mode, blob in files.values()])
        for path, (mode, blob) in files.items():
            target = self.path / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == SYMLINK:
                target.symlink_to(os.fsdecode(contents[blob]))
            else:
                target.write_bytes(contents[blob])
                target.chmod(0o755 if mode == "100755" else 0o644)

    def _link_ignored(self) -> set[str]:
        """Link the source's ignored top-level folders (dependencies, build outputs) into the copy."""
        source = self._source.workspace
        tops = {path.split("/", 1)[0] for path in self._base}
        candidates = [entry.name for entry in source.iterdir() if entry.name not in tops and entry.name != ".git"]
        linked: set[str] = set()
        for name in candidates:
            if (source / name).is_dir() and self._source.ignored([name]):
                (self.path / name).symlink_to((source / name).resolve(), target_is_directory=True)
                linked.add(name)
        return linked


def merge(
    target: Path, changes: Iterable[FileChange], label: str, *, before_write: Callable[[str], None] | None = None
) -> MergeReport:
    """Bring ``changes`` (a branch's, named ``label``) into the workspace ``target``, three ways per file.

    ``before_write(path)`` is called before each file of ``target`` is written (to checkpoint it for undo).
    """
    report = MergeReport()
    for change in changes:
        file = safe_target(target, change.path)
        ours = _current(file)
        if ours == change.after:
            continue
        if before_write is not None:
            before_write(change.path)
        conflict = _merge_one(file, ours, change, label)
        if conflict is None:
            report.applied.append(change.path)
        else:
            report.conflicts.append(conflict)
    return report


def has_markers(content: bytes) -> bool:
    """Whether ``content`` still holds a merge's conflict markers."""
    return any(line.startswith(_MARKERS) or line == b"=======" for line in content.splitlines())


def _merge_one(file: Path, ours: bytes | None, change: FileChange, label: str) -> Conflict | None:
    if ours == change.base:  # only the branch changed it
        _write(file, change.after, change.mode)
        return None
    if change.after is None or ours is None:  # deleted on one side, changed on the other: keep the change
        if ours is None:
            _write(file, change.after, change.mode)
        return Conflict(change.path, "deleted", label)
    if change.mode == SYMLINK or not (_is_text(ours) and _is_text(change.after) and _is_text(change.base or b"")):
        write_bytes(file.with_name(f"{file.name}.{label}"), change.after, None)
        return Conflict(change.path, "binary", label)
    merged, clean = _merge_file(ours, change.base or b"", change.after, label)
    _write(file, merged, change.mode)
    return None if clean else Conflict(change.path, "lines", label)


def _merge_file(ours: bytes, base: bytes, theirs: bytes, label: str) -> tuple[bytes, bool]:
    """``git merge-file``'s three-way merge: the result, and whether it had no conflict."""
    with tempfile.TemporaryDirectory(prefix="chrysalis-merge-") as folder:
        paths = [Path(folder, name) for name in ("ours", "base", "theirs")]
        for path, content in zip(paths, (ours, base, theirs), strict=True):
            path.write_bytes(content)
        argv = ["git", "merge-file", "-p", "-L", "workspace", "-L", "base", "-L", label, *map(str, paths)]
        env = {"PATH": os.environ.get("PATH", os.defpath), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        try:
            done = subprocess.run(argv, capture_output=True, env=env, check=False, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ChrysalisError(f"Cannot merge a leaf's edits: git merge-file did not run ({exc}).") from exc
    if done.returncode > 127:
        raise ChrysalisError(f"git merge-file failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout, done.returncode == 0


def _current(file: Path) -> bytes | None:
    if file.is_symlink():
        return os.fsencode(file.readlink())
    try:
        return file.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _write(file: Path, content: bytes | None, mode: str) -> None:
    if content is None:
        file.unlink(missing_ok=True)
    elif mode == SYMLINK:
        file.unlink(missing_ok=True)
        file.parent.mkdir(parents=True, exist_ok=True)
        file.symlink_to(os.fsdecode(content))
    else:
        write_bytes(file, content, 0o755 if mode == "100755" else 0o644)


def _is_text(content: bytes) -> bool:
    return b"\0" not in content[:8192]


def _read(repo: ShadowRepo, blobs: list[str]) -> dict[str, bytes]:
    """The objects' contents, a few hundred per ``git cat-file`` (its output is held in memory)."""
    found: dict[str, bytes] = {}
    for start in range(0, len(blobs), _BLOBS_PER_READ):
        found.update(repo.read_blobs(blobs[start : start + _BLOBS_PER_READ]))
    return found
