"""File checkpoints: the bytes of every file a run is about to change, so ``/undo`` can put them back.

Before any write the tools call ``snapshot``; only a path's first snapshot in a run is kept, because
that is the state before the run touched it. ``undo`` rewrites those bytes (or deletes a file the run
created, and the folders it created for it once they are empty) and marks the run undone. Contents
live in the database as BLOBs, so a checkpoint is written in the same crash-safe way as everything
else; files over ``MAX_CHECKPOINT_BYTES`` are refused rather than changed without a way back.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from chrysalis.errors import UsageError
from chrysalis.stores.db import Database

__all__ = ["MAX_CHECKPOINT_BYTES", "CheckpointRun", "CheckpointStore", "CheckpointTooLarge"]

MAX_CHECKPOINT_BYTES = 20 * 1024 * 1024
"""Files larger than this are not checkpointed, so the agent may not change them."""


class CheckpointTooLarge(UsageError):
    """A file is too large to checkpoint, so changing it could not be undone."""


@dataclass(frozen=True)
class CheckpointRun:
    """One run's checkpoints in one workspace."""

    run_id: str
    workspace: Path
    created_at: float
    """When the run first checkpointed a file here."""
    files: tuple[Path, ...]
    """The absolute paths the run changed (or created), sorted."""
    undone: bool


@dataclass(frozen=True)
class _Snapshot:
    rel: str
    existed: bool
    content: bytes | None
    mode: int | None
    new_dir: str | None = None
    """For a file that did not exist: the topmost of its folders that did not exist either."""


class CheckpointStore:
    """Per-run file snapshots in the ``checkpoint_runs`` and ``checkpoint_files`` tables."""

    def __init__(self, db: Database) -> None:
        """Use ``db``, shared with the other stores."""
        self._db = db

    def snapshot(self, run_id: str, workspace: Path, path: Path) -> None:
        """Save ``path``'s current bytes (or that it does not exist) before ``run_id`` writes it.

        ``path`` may be absolute or relative to ``workspace``. A second snapshot of the same path in
        the same run is ignored: undo must restore the state from before the run's first change.

        Raises:
            UsageError: ``path`` is outside ``workspace`` or is a folder.
            CheckpointTooLarge: the file is over ``MAX_CHECKPOINT_BYTES``.
        """
        root = workspace.resolve()
        target = (root / path).resolve()
        rel = _relative(root, target)
        key = str(root)
        seen = self._db.read(
            "SELECT 1 FROM checkpoint_files WHERE run_id = ? AND workspace = ? AND path = ?", (run_id, key, rel)
        )
        snap = None if seen else _read_snapshot(target, rel)
        now = time.time()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO checkpoint_runs (run_id, workspace, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (run_id, workspace) DO UPDATE SET undone_at = NULL, created_at ="
                " CASE WHEN undone_at IS NULL THEN created_at ELSE excluded.created_at END",
                (run_id, key, now),
            )
            if snap is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO checkpoint_files (run_id, workspace, path, existed, content, mode,"
                    " new_dir, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, key, snap.rel, int(snap.existed), snap.content, snap.mode, snap.new_dir, now),
                )

    def undo(self, workspace: Path, run_id: str | None = None) -> list[Path]:
        """Restore every file ``run_id`` changed in ``workspace`` and mark the run undone.

        With no ``run_id``, the latest run in this workspace that has checkpoints and is not yet
        undone is used. Files the run modified get their old bytes and permissions back; files it
        created are deleted, and so are the folders it created for them once nothing is left in
        them (a folder that existed before the run is never removed). Returns the restored paths
        (absolute, sorted).

        Raises:
            UsageError: there is nothing to undo, the run is unknown or already undone, or some
                files could not be restored (the message lists them; the run stays not undone).
        """
        root = workspace.resolve()
        key = str(root)
        run_id = self._pick_run(key, run_id)
        rows = self._db.read(
            "SELECT path, existed, content, mode, new_dir FROM checkpoint_files WHERE run_id = ? AND workspace = ?"
            " ORDER BY path",
            (run_id, key),
        )
        restored: list[Path] = []
        failures: list[str] = []
        for row in rows:
            snap = _Snapshot(str(row["path"]), bool(row["existed"]), row["content"], row["mode"], row["new_dir"])
            try:
                restored.append(_restore(root, snap))
            except OSError as exc:
                failures.append(f"{snap.rel} ({exc.strerror or exc})")
        for new_dir in sorted({str(row["new_dir"]) for row in rows if row["new_dir"]}, reverse=True):
            _remove_empty_folders(root / new_dir)
        if failures:
            raise UsageError(
                f"Could not restore {len(failures)} file(s) of run {run_id!r} in {root}: {', '.join(failures)}. "
                "Fix the permissions and run undo again."
            )
        with self._db.write() as conn:
            conn.execute(
                "UPDATE checkpoint_runs SET undone_at = ? WHERE run_id = ? AND workspace = ?",
                (time.time(), run_id, key),
            )
        return restored

    def _pick_run(self, key: str, run_id: str | None) -> str:
        """The run to undo, or a ``UsageError`` that says why there is none."""
        if run_id is None:
            rows = self._db.read(
                "SELECT run_id FROM checkpoint_runs WHERE workspace = ? AND undone_at IS NULL"
                " ORDER BY created_at DESC, rowid DESC LIMIT 1",
                (key,),
            )
            if not rows:
                raise UsageError(
                    f"Nothing to undo in {key}: no run has changed files in this workspace, or every "
                    "such run was already undone. (Undo works per workspace: check --workspace.)"
                )
            return str(rows[0]["run_id"])
        rows = self._db.read("SELECT undone_at FROM checkpoint_runs WHERE workspace = ? AND run_id = ?", (key, run_id))
        if not rows:
            raise UsageError(
                f"Nothing to undo for run {run_id!r} in {key}: it changed no files here. "
                "Check the run id and the workspace (--workspace)."
            )
        if rows[0]["undone_at"] is not None:
            raise UsageError(f"Run {run_id!r} in {key} was already undone; there is nothing left to restore.")
        return run_id

    def runs(self, workspace: Path) -> list[CheckpointRun]:
        """Every run that checkpointed files in ``workspace``, newest first."""
        root = workspace.resolve()
        rows = self._db.read(
            "SELECT r.run_id, r.created_at, r.undone_at, f.path FROM checkpoint_runs r"
            " LEFT JOIN checkpoint_files f ON f.run_id = r.run_id AND f.workspace = r.workspace"
            " WHERE r.workspace = ? ORDER BY r.created_at DESC, r.rowid DESC, f.path",
            (str(root),),
        )
        runs: dict[str, CheckpointRun] = {}
        for row in rows:
            run_id = str(row["run_id"])
            run = runs.get(run_id) or CheckpointRun(
                run_id, root, float(row["created_at"]), (), row["undone_at"] is not None
            )
            files = run.files if row["path"] is None else (*run.files, root / str(row["path"]))
            runs[run_id] = CheckpointRun(run.run_id, root, run.created_at, files, run.undone)
        return list(runs.values())


def _relative(root: Path, target: Path) -> str:
    try:
        return target.relative_to(root).as_posix()
    except ValueError:
        raise UsageError(f"Cannot checkpoint {target}: it is outside the workspace {root}.") from None


def _read_snapshot(target: Path, rel: str) -> _Snapshot:
    """The file's bytes and permissions now, or a note that it does not exist yet."""
    try:
        info = target.stat()
    except FileNotFoundError:
        return _Snapshot(rel, existed=False, content=None, mode=None, new_dir=_topmost_missing_folder(target, rel))
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"Cannot checkpoint {target}: it is a folder; only files can be written and undone.")
    if info.st_size > MAX_CHECKPOINT_BYTES:
        raise CheckpointTooLarge(
            f"{target} is {info.st_size / 1_048_576:.1f} MB, over the {MAX_CHECKPOINT_BYTES // 1_048_576} MB "
            "checkpoint limit, so a change to it could not be undone. Edit it yourself, outside the agent."
        )
    return _Snapshot(rel, existed=True, content=target.read_bytes(), mode=stat.S_IMODE(info.st_mode))


def _restore(root: Path, snap: _Snapshot) -> Path:
    """Put one file back: its old bytes via an atomic replace, or no file at all if it did not exist."""
    target = root / snap.rel
    if not snap.existed:
        target.unlink(missing_ok=True)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".undo")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(snap.content or b"")
        if snap.mode is not None:
            Path(tmp).chmod(snap.mode)
        Path(tmp).replace(target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def _topmost_missing_folder(target: Path, rel: str) -> str | None:
    """The highest folder on ``rel``'s path that does not exist yet (relative), or None if its parent exists."""
    missing: str | None = None
    folder, rel_folder = target.parent, Path(rel).parent
    while rel_folder != Path() and not folder.exists():
        missing = rel_folder.as_posix()
        folder, rel_folder = folder.parent, rel_folder.parent
    return missing


def _remove_empty_folders(top: Path) -> None:
    """Remove ``top`` and the folders below it, bottom up, wherever nothing is left in them."""
    if not top.is_dir() or top.is_symlink():
        return
    for folder, _, _ in os.walk(top, topdown=False):
        with contextlib.suppress(OSError):  # not empty (or not ours to remove): keep it
            Path(folder).rmdir()
