"""Checkpoints: what a run changed in the workspace and how it was before, so ``/undo`` can put it back.

Two kinds, one undo:

- **File tools** call ``snapshot`` before a write: the file's bytes (or that it did not exist) go
  into the database as a BLOB; only a path's first snapshot in a run is kept, because that is the
  state before the run touched it. Files over ``MAX_CHECKPOINT_BYTES`` are refused rather than
  changed without a way back.
- **Commands and commits** (anything that may change any file) run inside ``around_command``: the
  whole workspace is snapshotted before and after as trees in a shadow git store outside it
  (``shadow.py``); the paths that differ between the two are what the command changed, and the
  tree before holds how they were.

``undo`` restores each path the run changed to its *earliest* recorded state: a file written by a
tool and later changed by a command gets the tool's snapshot back, a file a command changed and a
tool later rewrote gets the tree from before that command. Files the run created are deleted (and
the folders made for them, once empty); paths the run never changed are never touched, nor are
ignored ones (``.venv``, ``node_modules``) unless a file tool wrote them. Commits stay in the git
history: undo restores the files, and the report says where HEAD was before. ``restore`` does the
same for several runs as one (a run and its sub-runs, ``run_tree.py``): earliest state among them all.
"""

from __future__ import annotations

import contextlib
import sqlite3
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from chrysalis.errors import UsageError
from chrysalis.stores.db import Database
from chrysalis.stores.putback import (
    GITLINK,
    delete_created,
    remove_empty_folders,
    safe_target,
    write_bytes,
    write_entry,
)
from chrysalis.stores.shadow import EMPTY_MODE, Change, ShadowRepo, SnapshotUnavailable

__all__ = [
    "MAX_CHECKPOINT_BYTES",
    "CheckpointRun",
    "CheckpointStore",
    "CheckpointTooLarge",
    "SnapshotUnavailable",
    "UndoReport",
]

MAX_CHECKPOINT_BYTES = 20 * 1024 * 1024
"""Files larger than this are not checkpointed, so the agent may not change them."""
SHADOW_DIRNAME = "shadow"
"""The folder of ``$CHRYSALIS_HOME`` that holds the shadow git stores, one per workspace."""


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
class UndoReport:
    """What ``undo`` did in one workspace."""

    run_id: str
    workspace: Path
    restored: tuple[Path, ...]
    """Files put back as they were before the run, or removed because the run created them (absolute, sorted)."""
    left: tuple[Path, ...] = ()
    """Files that appeared during a command but are older than it (moved in from an ignored folder, or
    no longer ignored after the run changed a ``.gitignore``): not the run's to delete, so left in place."""
    head_before: str | None = None
    """The commit the workspace's repository had checked out before the run's first command or commit ..."""
    head_after: str | None = None
    """... and after its last one; they differ when the run committed (or checked out something else)."""
    runs: tuple[str, ...] = ()
    """The runs undone: ``run_id`` alone, or with the sub-agents and decomposition leaves it started."""

    @property
    def moved_head(self) -> bool:
        """True when the run left the repository on another commit (undo does not move it back)."""
        return self.head_after is not None and self.head_after != self.head_before

    def notes(self) -> list[str]:
        """What the user should know beyond the restored files, one sentence each."""
        notes: list[str] = []
        if self.moved_head and self.head_after is not None:
            after = self.head_after[:12]
            if self.head_before is None:
                drop = "git update-ref -d HEAD (keeps the files as they are now)"
                was = "the repository had no commit before"
            else:
                drop = f"git reset {self.head_before[:12]} (keeps the files as they are now)"
                was = f"it was {self.head_before[:12]} before the run"
            notes.append(
                f"The run's git commits stay in the history: HEAD is {after}, {was}. The files are back as they "
                f"were before the run, so git status shows the undo as changes. To drop the commits too: {drop}."
            )
        if self.left:
            names = ", ".join(str(p.relative_to(self.workspace)) for p in self.left[:5])
            notes.append(
                f"Left in place {len(self.left)} file(s) a command moved or un-ignored rather than created: {names}."
            )
        return notes


_Head = str | None
"""A commit id, or None when there is no repository or no commit yet."""


@dataclass(frozen=True)
class _Command:
    """One command or commit of a run, as ``around_command`` recorded it."""

    seq: int
    before: str
    after: str | None
    head_before: str | None
    head_after: str | None
    started: float


@dataclass
class _Plan:
    """What undo will do: per path, the earliest state the run recorded for it."""

    blobs: dict[str, tuple[_Snapshot, float]] = field(default_factory=dict)
    """Path -> the file tool's snapshot and when it was taken."""
    tree: dict[str, tuple[Change, float]] = field(default_factory=dict)
    """Path -> its state in the tree before the first command that changed it, and when that command started."""


@dataclass(frozen=True)
class _Snapshot:
    rel: str
    existed: bool
    content: bytes | None
    mode: int | None
    new_dir: str | None = None
    """For a file that did not exist: the topmost of its folders that did not exist either."""


class CheckpointStore:
    """Per-run file snapshots (``checkpoint_files``) and command snapshots (``checkpoint_commands``)."""

    def __init__(self, db: Database, home: Path) -> None:
        """Use ``db``, shared with the other stores; the shadow git stores live in ``home/shadow``."""
        self._db = db
        self._home = home

    def shadow(self, workspace: Path) -> ShadowRepo:
        """The shadow git store of ``workspace`` (created on its first snapshot)."""
        return ShadowRepo(self._home / SHADOW_DIRNAME, workspace, exclude=[self._home])

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
            _open_run(conn, run_id, key, now)
            if snap is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO checkpoint_files (run_id, workspace, path, existed, content, mode,"
                    " new_dir, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (run_id, key, snap.rel, int(snap.existed), snap.content, snap.mode, snap.new_dir, now),
                )

    @contextlib.contextmanager
    def around_command(self, run_id: str, workspace: Path, kind: str) -> Iterator[None]:
        """Snapshot the whole workspace before and after the body: a shell command or a commit of ``run_id``.

        The snapshot before is taken on entering; if it cannot be taken (no git, a workspace too big)
        ``SnapshotUnavailable`` is raised before the body runs, so the caller can refuse the command
        rather than run it without a way back. The snapshot after is taken however the body ends; if
        it fails, undo compares with the workspace as it is when undo runs.

        Raises:
            SnapshotUnavailable: the snapshot before could not be taken (the message says why and what to do).
        """
        repo = self.shadow(workspace)
        key = str(repo.workspace)
        started = time.time()
        head_before = repo.head()
        before = repo.snapshot()
        with self._db.write() as conn:
            _open_run(conn, run_id, key, started)
            seq = int(
                conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM checkpoint_commands WHERE run_id = ? AND workspace = ?",
                    (run_id, key),
                ).fetchone()[0]
            )
            conn.execute(
                "INSERT INTO checkpoint_commands (run_id, workspace, seq, kind, before_tree, head_before, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, key, seq, kind, before, head_before, started),
            )
        try:
            yield
        finally:
            after: str | None = None
            with contextlib.suppress(SnapshotUnavailable):  # undo then compares with the workspace as it is then
                after = repo.snapshot(capped=False)
            with self._db.write() as conn:
                conn.execute(
                    "UPDATE checkpoint_commands SET after_tree = ?, head_after = ? WHERE run_id = ? AND workspace = ?"
                    " AND seq = ?",
                    (after, repo.head(), run_id, key, seq),
                )

    def undo(self, workspace: Path, run_id: str | None = None) -> UndoReport:
        """Restore every file ``run_id`` changed in ``workspace`` and mark the run undone.

        With no ``run_id``, the latest run in this workspace that has checkpoints and is not yet
        undone is used. Each path the run changed gets its earliest recorded state back (see the
        module's docstring): old bytes and permissions for a file it modified, no file at all for
        one it created (and the folders it created for it, once nothing is left in them; a folder
        that existed before the run is never removed), the file again for one it deleted.

        Raises:
            UsageError: there is nothing to undo, the run is unknown or already undone, the run's
                command snapshots cannot be read (git missing), or some files could not be restored
                (the message lists them; the run stays not undone).
        """
        key = str(workspace.resolve())
        run_id = self._pick_run(key, run_id)
        return self.restore(workspace, (run_id,), label=run_id)

    def restore(self, workspace: Path, run_ids: tuple[str, ...], *, label: str) -> UndoReport:
        """Undo ``run_ids`` as one (a run and its sub-runs, ``label`` the top one's id) and mark each undone.

        Each path gets its earliest recorded state among all of them, as ``undo`` does within one run:
        the same as undoing the runs one by one newest first, and right even when two runs took turns
        on one file. Everything is planned (command snapshots read) before the first file is touched.

        Raises:
            UsageError: as ``undo``, once the runs are chosen.
        """
        root = workspace.resolve()
        plan, repo, commands, head_after = self._plan(root, run_ids)
        restored, left, failures = _apply(root, plan, repo)
        for new_dir in sorted({s.new_dir for s, _ in plan.blobs.values() if s.new_dir}, reverse=True):
            remove_empty_folders(root / new_dir)
        if failures:
            raise UsageError(
                f"Could not restore {len(failures)} file(s) of run {label!r} in {root}: {', '.join(failures)}. "
                "Fix the permissions and run undo again."
            )
        with self._db.write() as conn:
            conn.executemany(
                "UPDATE checkpoint_runs SET undone_at = ? WHERE run_id = ? AND workspace = ?",
                [(time.time(), run_id, str(root)) for run_id in run_ids],
            )
        return UndoReport(
            run_id=label,
            workspace=root,
            restored=tuple(sorted(restored)),
            left=tuple(sorted(left)),
            head_before=commands[0].head_before if commands else None,
            head_after=head_after,
            runs=run_ids,
        )

    def changed(self, workspace: Path, run_ids: tuple[str, ...]) -> tuple[Path, ...]:
        """The paths ``restore`` would put back for ``run_ids`` (absolute, sorted); changes nothing in ``workspace``."""
        root = workspace.resolve()
        plan = self._plan(root, run_ids)[0]
        return tuple(root / rel for rel in sorted({*plan.blobs, *plan.tree}))

    def _plan(self, root: Path, run_ids: tuple[str, ...]) -> tuple[_Plan, ShadowRepo | None, list[_Command], _Head]:
        """What undoing ``run_ids`` restores, the shadow store it reads, their commands and HEAD after them."""
        commands = self._commands(run_ids, str(root))
        repo = self.shadow(root) if commands else None
        plan = _Plan(blobs=self._file_snapshots(run_ids, str(root)))
        head_after = _plan_commands(plan, repo, commands) if repo is not None else None
        return plan, repo, commands, head_after

    def _file_snapshots(self, run_ids: tuple[str, ...], key: str) -> dict[str, tuple[_Snapshot, float]]:
        rows = self._db.read(  # newest first, so that each path's earliest snapshot is the one kept
            "SELECT path, existed, content, mode, new_dir, created_at FROM checkpoint_files"
            f" WHERE run_id IN ({_marks(run_ids)}) AND workspace = ? ORDER BY created_at DESC",
            (*run_ids, key),
        )
        return {
            str(row["path"]): (
                _Snapshot(str(row["path"]), bool(row["existed"]), row["content"], row["mode"], row["new_dir"]),
                float(row["created_at"]),
            )
            for row in rows
        }

    def _commands(self, run_ids: tuple[str, ...], key: str) -> list[_Command]:
        rows = self._db.read(
            "SELECT seq, before_tree, after_tree, head_before, head_after, created_at FROM checkpoint_commands"
            f" WHERE run_id IN ({_marks(run_ids)}) AND workspace = ? ORDER BY created_at, seq",
            (*run_ids, key),
        )
        return [
            _Command(
                seq=int(row["seq"]),
                before=str(row["before_tree"]),
                after=row["after_tree"],
                head_before=row["head_before"],
                head_after=row["head_after"],
                started=float(row["created_at"]),
            )
            for row in rows
        ]

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


def _marks(values: tuple[str, ...]) -> str:
    """The ``?`` placeholders of an ``IN (...)`` list of ``values``."""
    return ", ".join("?" * len(values))


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
    target = safe_target(root, snap.rel)
    if not snap.existed:
        target.unlink(missing_ok=True)
        return target
    write_bytes(target, snap.content or b"", snap.mode)
    return target


def _open_run(conn: sqlite3.Connection, run_id: str, key: str, now: float) -> None:
    """Record that ``run_id`` has checkpoints in workspace ``key`` (again not undone, if it was)."""
    conn.execute(
        "INSERT INTO checkpoint_runs (run_id, workspace, created_at) VALUES (?, ?, ?)"
        " ON CONFLICT (run_id, workspace) DO UPDATE SET undone_at = NULL, created_at ="
        " CASE WHEN undone_at IS NULL THEN created_at ELSE excluded.created_at END",
        (run_id, key, now),
    )


def _plan_commands(plan: _Plan, repo: ShadowRepo, commands: list[_Command]) -> str | None:
    """Add what the commands changed to ``plan``, keeping each path's earliest state; returns HEAD after them."""
    now: str | None = None
    for command in commands:
        after = command.after
        if after is None:  # the process ended during the command: compare with the workspace as it is
            now = now or repo.snapshot(capped=False)
            after = now
        for change in repo.changes(command.before, after):
            plan.tree.setdefault(change.path, (change, command.started))
    for rel, (_change, started) in list(plan.tree.items()):
        blob = plan.blobs.get(rel)
        if blob is None:
            continue
        if blob[1] <= started:  # a file tool wrote it first: its snapshot is the earlier state
            del plan.tree[rel]
        else:
            del plan.blobs[rel]
    return commands[-1].head_after or repo.head()


def _apply(root: Path, plan: _Plan, repo: ShadowRepo | None) -> tuple[list[Path], list[Path], list[str]]:
    """Carry out ``plan``. Returns the restored paths, those left in place, and the failures.

    ``.gitignore`` files come back first, so that what the run's commands seemed to create can be
    checked against the ignore rules from before the run: a path those rules ignore was not visible
    to the snapshots before (the run un-ignored it), so it is not the run's to delete. Then the
    deletions, deepest first (a folder may have to go before a file of the same name comes back),
    then the writes.
    """
    done = _Outcome(root)
    contents = (
        repo.read_blobs([c.blob for c, _ in plan.tree.values() if c.mode not in (EMPTY_MODE, GITLINK)])
        if (repo is not None)
        else {}
    )
    rules = sorted(rel for rel in {*plan.blobs, *plan.tree} if PurePosixPath(rel).name == ".gitignore")
    for rel in rules:
        done.restore(rel, plan, contents)
    created = [rel for rel, (change, _) in plan.tree.items() if change.mode == EMPTY_MODE and rel not in rules]
    ignored = repo.ignored(created) if repo is not None else set()
    done.left += [root / rel for rel in sorted(ignored)]
    deletions = {rel for rel, (snap, _) in plan.blobs.items() if not snap.existed} | set(created)
    for rel in sorted(deletions - ignored - set(rules), reverse=True):
        done.restore(rel, plan, contents)
    for rel in sorted({*plan.blobs, *plan.tree} - deletions - set(rules)):
        done.restore(rel, plan, contents)
    return done.restored, done.left, done.failures


@dataclass
class _Outcome:
    """What undo has done so far, path by path."""

    root: Path
    restored: list[Path] = field(default_factory=list)
    left: list[Path] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def restore(self, rel: str, plan: _Plan, contents: dict[str, bytes]) -> None:
        """Give ``rel`` its earliest state in ``plan``; a failure is noted, not raised."""
        try:
            if rel in plan.blobs:
                self.restored.append(_restore(self.root, plan.blobs[rel][0]))
                return
            change, started = plan.tree[rel]
            if change.mode == EMPTY_MODE:
                done = delete_created(self.root, rel, started)
            else:
                done = write_entry(self.root, change, contents)
            (self.restored if done else self.left).append(self.root / rel)
        except OSError as exc:
            self.failures.append(f"{rel} ({exc.strerror or exc})")


def _topmost_missing_folder(target: Path, rel: str) -> str | None:
    """The highest folder on ``rel``'s path that does not exist yet (relative), or None if its parent exists."""
    missing: str | None = None
    folder, rel_folder = target.parent, Path(rel).parent
    while rel_folder != Path() and not folder.exists():
        missing = rel_folder.as_posix()
        folder, rel_folder = folder.parent, rel_folder.parent
    return missing
