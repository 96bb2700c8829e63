"""Git status, diff, log and commit for the workspace's repository.

Git runs as a subprocess with no pager, no prompts and no colour, so its output is plain text the
model can read. Paths given to ``git_diff`` and ``git_commit`` go through ``workspace.resolve``
like every other path, so a commit cannot reach outside the workspace.

Git runs outside the sandbox, so nothing in the repository may make it run code: hooks and
``core.fsmonitor`` are off, diffs use no external driver or textconv, and the filter, diff and
merge drivers the repository's own config defines (``local``/``worktree`` scope, where a command
under Landlock could have planted one) are blanked for the call. The user's global drivers (git-lfs)
stay. Its environment has no variable that looks like a secret.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec, at_most
from chrysalis.tools.sandbox_env import looks_secret
from chrysalis.tools.workspace import relative, resolve

__all__ = [
    "GitCommitArgs",
    "GitDiffArgs",
    "GitLogArgs",
    "GitStatusArgs",
    "git_commit",
    "git_diff",
    "git_log",
    "git_status",
]

GIT_TIMEOUT = 60.0
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


_SAFE_CONFIG = ("color.ui=false", "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.sshCommand=false")
_RUNS_CODE = r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver)$"
"""Config keys whose value is a command git runs."""


def _env() -> dict[str, str]:
    """The environment without secrets; git's own variables (``GIT_AUTHOR_NAME``, ...) are kept."""
    return {**{k: v for k, v in os.environ.items() if k.startswith("GIT_") or not looks_secret(k)}, **_ENV}


def _blanked_drivers(workspace: Path) -> list[str]:
    """``-c KEY=`` for each command-running key the repository's own config sets (an empty value turns it off)."""
    done = subprocess.run(
        ["git", "config", "--show-scope", "--get-regexp", _RUNS_CODE],
        cwd=workspace,
        env=_env(),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=GIT_TIMEOUT,
        check=False,
    )
    blanked: list[str] = []
    for line in done.stdout.splitlines():
        scope, _, entry = line.partition("\t")
        if scope in ("local", "worktree"):
            blanked += ["-c", entry.split(" ", 1)[0] + "="]
    return blanked


def _git(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run git in ``workspace`` and return the finished process (the caller checks the exit code)."""
    safe = [part for setting in _SAFE_CONFIG for part in ("-c", setting)]
    try:
        return subprocess.run(
            ["git", "--no-pager", *safe, *_blanked_drivers(workspace), *args],
            cwd=workspace,
            env=_env(),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise ToolError("git is not installed on this machine.") from None
    except subprocess.TimeoutExpired:
        raise ToolError(f"git {args[0]} took longer than {GIT_TIMEOUT:g}s and was stopped.") from None


def _repo(ctx: ToolContext) -> Path:
    """The workspace, after checking it is inside a git work tree (else a clear ToolError)."""
    workspace = ctx.workspace.resolve()
    done = _git(workspace, "rev-parse", "--is-inside-work-tree")
    if done.returncode != 0 or done.stdout.strip() != "true":
        raise ToolError(
            f"The workspace ({workspace}) is not a git repository, so git tools cannot be used here. "
            "Ask the user to run 'git init' if they want version control."
        )
    return workspace


def _checked(workspace: Path, *args: str) -> str:
    """Git's output, or a ToolError carrying git's own message when it fails."""
    done = _git(workspace, *args)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip() or f"exit code {done.returncode}"
        raise ToolError(f"git {args[0]} failed: {message}")
    return done.stdout


class GitStatusArgs(ToolArgs):
    """Arguments of git_status (none)."""


def _git_status(_args: GitStatusArgs, ctx: ToolContext) -> ToolResult:
    out = _checked(_repo(ctx), "status", "--short", "--branch", "--untracked-files=all")
    lines = out.strip().splitlines()
    if len(lines) <= 1:
        return ToolResult.success(f"{lines[0] if lines else '##'}\nNothing changed: the working tree is clean.")
    return ToolResult.success("\n".join(lines))


git_status = ToolSpec(
    name="git_status",
    description="Show the git branch and which files are changed, staged or untracked.",
    args=GitStatusArgs,
    effect="read",
    level=0,
    run=_git_status,
)


class GitDiffArgs(ToolArgs):
    """Arguments of git_diff."""

    path: str | None = Field(default=None, description="Only this file or folder.")
    staged: bool = Field(default=False, description="Show staged changes instead of unstaged ones.")


def _git_diff(args: GitDiffArgs, ctx: ToolContext) -> ToolResult:
    workspace = _repo(ctx)
    cmd = ["diff", "--no-ext-diff", "--no-textconv"] + (["--cached"] if args.staged else [])
    if args.path is not None:
        cmd += ["--", relative(workspace, resolve(workspace, args.path))]
    out = _checked(workspace, *cmd)
    if not out.strip():
        kind = "staged" if args.staged else "unstaged"
        return ToolResult.success(f"No {kind} changes" + (f" in {args.path}." if args.path else "."))
    return ToolResult.success(out.rstrip("\n"))


git_diff = ToolSpec(
    name="git_diff",
    description="Show the diff of uncommitted changes (or staged ones), optionally for one path.",
    args=GitDiffArgs,
    effect="read",
    level=0,
    run=_git_diff,
)


class GitLogArgs(ToolArgs):
    """Arguments of git_log."""

    n: Annotated[int, at_most(100)] = Field(default=10, ge=1, le=100, description="How many recent commits to show.")


def _git_log(args: GitLogArgs, ctx: ToolContext) -> ToolResult:
    workspace = _repo(ctx)
    done = _git(workspace, "log", f"-n{args.n}", "--date=short", "--pretty=format:%h %ad %an: %s")
    if done.returncode != 0:
        if "does not have any commits" in done.stderr:
            return ToolResult.success("No commits yet.")
        raise ToolError(f"git log failed: {done.stderr.strip()}")
    return ToolResult.success(done.stdout.strip() or "No commits yet.")


git_log = ToolSpec(
    name="git_log",
    description="Show the most recent commits: short hash, date, author and subject.",
    args=GitLogArgs,
    effect="read",
    level=0,
    run=_git_log,
)


class GitCommitArgs(ToolArgs):
    """Arguments of git_commit."""

    message: str = Field(description="The commit message.")
    paths: list[str] | None = Field(default=None, description="Files to commit; all changes when omitted.")


_NO_IDENTITY = (
    "git commit failed: git has no identity to commit as (no user.name and user.email). The user can set one "
    'with `git config --global user.name "Your Name"` and `git config --global user.email you@example.com` '
    "(or GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME and GIT_COMMITTER_EMAIL in the environment). "
    "The changes are staged, not committed."
)
"""What a commit without an identity says instead of git's own six lines (a fresh machine has none)."""


def _git_commit(args: GitCommitArgs, ctx: ToolContext) -> ToolResult:
    if not args.message.strip():
        raise ToolError("The commit message is empty; say what the change does.")
    workspace = _repo(ctx)
    rels = [relative(workspace, resolve(workspace, p)) for p in args.paths or []]
    _checked(workspace, "add", *(["--", *rels] if rels else ["-A"]))
    only = ["--", *rels] if rels else []
    if _git(workspace, "diff", "--cached", "--quiet", *only).returncode == 0:
        raise ToolError("Nothing to commit: there are no changes" + (" in those paths." if rels else "."))
    done = _git(workspace, "commit", "-q", "-m", args.message, *only)
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip()
        raise ToolError(_NO_IDENTITY if "identity unknown" in message.lower() else f"git commit failed: {message}")
    summary = _checked(workspace, "log", "-1", "--stat", "--format=%h %s").strip()
    return ToolResult.success(f"Committed {summary}")


def commit_preview(args: dict[str, Any], ctx: ToolContext) -> str:
    """What ``git_commit`` with ``args`` would commit, read without staging anything (for the security judge).

    The message, then the changes of the paths (all when none are named) against ``HEAD`` (or the index in a
    repository without commits), then each new file's name: ``git add -A`` would commit those too.
    """
    checked = GitCommitArgs.model_validate(args)
    workspace = _repo(ctx)
    rels = [relative(workspace, resolve(workspace, p)) for p in checked.paths or []]
    base = ["HEAD"] if _git(workspace, "rev-parse", "--verify", "-q", "HEAD").returncode == 0 else ["--cached"]
    diff = _checked(workspace, "diff", *base, "--", *rels).strip()
    new = _checked(workspace, "ls-files", "--others", "--exclude-standard", "--", *rels).split()
    lines = [f"message: {checked.message}", diff or "(no change to tracked files)"]
    return "\n".join([*lines, *(f"new file: {name}" for name in new)])


git_commit = ToolSpec(
    name="git_commit",
    description="Stage the given files (or all changes) and commit them with a message.",
    args=GitCommitArgs,
    effect="write",
    level=2,
    run=_git_commit,
    # A commit changes .git only, never a file's content: no file targets. Architect mode, which
    # only allows doc writes, therefore refuses it, and protected tests may still be committed.
    write_targets=lambda _args: [],
)
