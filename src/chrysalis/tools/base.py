"""What a tool is: a name, typed arguments, a declared effect and level, and a function.

Tools never raise for problems the model can fix (a missing file, a bad argument, a path outside
the workspace): they return ``ToolResult.failure(...)`` so the model sees the error and can try
again. The security policy (``chrysalis.tools.policy``) reads ``effect``, ``level`` and
``write_targets`` to decide, before any call, whether it is allowed, needs approval or is denied.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict

from chrysalis.tools.egress import HostRules
from chrysalis.tools.running import RunningCommands
from chrysalis.tools.sandbox import SandboxOptions

__all__ = [
    "MAX_RESULT_CHARS",
    "Effect",
    "FileChange",
    "ToolArgs",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "ToolSpec",
    "at_most",
    "truncate",
]

Effect = Literal["read", "network", "memory", "write", "shell"]
"""What a tool does to the world; the policy decides by effect, level and mode."""

MAX_RESULT_CHARS = 12_000
"""Results longer than this are cut, with a marker that says how much was left out."""


class ToolError(Exception):
    """A problem the model can fix (bad path, no match, file missing); becomes a failed ``ToolResult``."""


def at_most(ceiling: int) -> BeforeValidator:
    """Bring a count above ``ceiling`` down to it, before the field's own ``le`` is checked.

    A small model asks for "all" with a huge number (``max_matches=10**15``); refusing that costs
    it a step to say the same thing again, while the ceiling is what it would get anyway. Used as
    ``n: Annotated[int, at_most(100)] = Field(default=10, ge=1, le=100)``: the schema still shows
    the maximum, and a count below the minimum is still an error.
    """

    def clamp(value: Any) -> Any:
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        return ceiling if is_number and value > ceiling else value

    return BeforeValidator(clamp)


class ToolArgs(BaseModel):
    """Base class of every tool's arguments: its JSON schema is what the model sees."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolResult(BaseModel):
    """The one shape every tool returns: ``ok`` with a ``result``, or not ``ok`` with an ``error``."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    result: Any = None
    error: str | None = None

    @classmethod
    def success(cls, result: Any) -> ToolResult:
        """A result the model can read; long strings are truncated with a marker."""
        return cls(ok=True, result=truncate(result) if isinstance(result, str) else result)

    @classmethod
    def failure(cls, error: str) -> ToolResult:
        """An error the model can act on: say what was wrong and what to do instead."""
        return cls(ok=False, error=truncate(error))

    def for_model(self) -> dict[str, Any]:
        """The compact form sent back to the model."""
        return {"ok": True, "result": self.result} if self.ok else {"ok": False, "error": self.error}


def truncate(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    """Keep the head and tail of a long text and say how much was cut from the middle."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3) :]
    return f"{head}\n[... truncated {len(text) - len(head) - len(tail)} characters ...]\n{tail}"


@dataclass(frozen=True)
class ToolContext:
    """What a tool may touch: the workspace, and a hook to call before changing a file."""

    workspace: Path
    """The folder every path is resolved in; nothing outside it may be read or written."""
    before_write: Callable[[Path], None] = field(default=lambda _path: None)
    """Called with the absolute path before a file is created, changed or deleted (checkpoints)."""
    shell_timeout: float = 120.0
    """Seconds a shell command may run before it is killed."""
    writable: bool = True
    """Commands may write the workspace (level 3: ``Policy.commands_writable``); False: they see it read-only
    (levels 1-2, the final check unless level 3 with ``--yes``: ``Policy.check_writable``).

    Either way they run confined (``chrysalis.tools.sandbox``): only ``--unsafe-no-sandbox`` on a
    machine where no sandbox works lets a command run unconfined."""
    sandbox_options: SandboxOptions = field(default_factory=SandboxOptions)
    """Network, limits and the unsafe escape for commands (``SandboxOptions.from_settings``)."""
    test_command: str | None = None
    """The project's test command (``test_command`` in config); ``None`` means detect it from the project files."""
    commands: RunningCommands = field(default_factory=RunningCommands)
    """The run's commands still going: a cancelled run kills them (``GatedTools``) rather than wait for them."""
    hosts: HostRules = field(default_factory=HostRules)
    """Which hosts the web tools may reach beyond public addresses, and which never (``Policy.hosts``); the
    default, no rules, lets them reach public addresses only (``chrysalis.tools.egress``)."""


@dataclass(frozen=True)
class FileChange:
    """What a call would do to one file, computed without doing it (``ToolSpec.preview``)."""

    path: str
    """Workspace-relative, as the tool shows it."""
    old: str | None
    """The current text; None when the call creates the file."""
    new: str | None
    """The text after the call; None when the call deletes the file."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its model-facing schema, its declared effect and level, and its function."""

    name: str
    description: str
    args: type[ToolArgs]
    effect: Effect
    level: int
    """The lowest security level at which the tool may run at all."""
    run: Callable[[Any, ToolContext], ToolResult]
    """The implementation; gets validated ``args`` (an instance of ``self.args``)."""
    write_targets: Callable[[Any], list[str]] = field(default=lambda _args: [])
    """The workspace-relative paths a call would write; the policy checks them (architect mode, protected tests)."""
    arun: Callable[[Any, ToolContext], Awaitable[ToolResult]] | None = None
    """An async implementation, used instead of ``run`` by callers that can await (sub-agents, which run
    in the caller's event loop); ``run`` is then what answers a synchronous call."""
    preview: Callable[[Any, ToolContext], list[FileChange]] | None = None
    """For tools that change files: each file's text before and after the call, computed by the same code
    that ``run`` uses and changing nothing, so a user asked to approve the call sees its diff. Raises
    ``ToolError`` exactly where ``run`` would fail."""
    reaches: Callable[[Any], str | None] = field(default=lambda _args: None)
    """The URL a network call requests (``web_fetch``'s ``url``, ``web_search``'s provider), whose domain the
    policy asks about when it is new to the session (``Policy.decide``); None: a call that names no URL."""
    writes_through_policy: bool = False
    """The tool writes nothing itself: each file it writes is judged when written, by the run's policy as
    ``write_file`` (``Policy.may_write``) and approved after its diff (the ``repair`` tool's patch). So the
    call needs no confirmation of its own (asking first would ask twice, the first time without a diff);
    the level, the mode and the rules still judge the call, an ``ask`` rule naming it still asks, and a
    rule denying a file tool whole refuses it (every write it could make would be refused)."""
    fixes_failing_tests: bool = False
    """The framework calls this tool itself, with no arguments, when a run's final check fails or its model
    stalls and the model never called it (``repair``): a small model that greps in circles will not think of it."""

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments, as models see it (a copy: the caller may change it)."""
        return copy.deepcopy(_schema_of(self.args))

    def __call__(self, raw_args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Validate ``raw_args`` and run; bad arguments and ``ToolError`` become failed results."""
        try:
            args = self.args.model_validate(raw_args)
        except ValueError as exc:
            return ToolResult.failure(f"Bad arguments for {self.name}: {_short_validation(exc)}")
        return self.run_validated(args, ctx)

    def preview_changes(self, raw_args: dict[str, Any], ctx: ToolContext) -> list[FileChange] | None:
        """What the call would change, file by file; None when this tool has no preview.

        Raises:
            ToolError: The arguments are invalid, or the call would fail (old text not found, hunk
                does not apply); the message is the one the model would get.
        """
        if self.preview is None:
            return None
        try:
            args = self.args.model_validate(raw_args)
        except ValueError as exc:
            raise ToolError(f"Bad arguments for {self.name}: {_short_validation(exc)}") from None
        try:
            return self.preview(args, ctx)
        except OSError as exc:
            raise ToolError(f"{self.name} would fail: {exc.strerror or exc}") from None

    def run_validated(self, args: Any, ctx: ToolContext) -> ToolResult:
        """Run with already-validated ``args``; problems the model can fix become failed results."""
        try:
            return self.run(args, ctx)
        except ToolError as exc:
            return ToolResult.failure(str(exc))
        except OSError as exc:  # permission denied, is a directory, disk full: the model can choose otherwise
            return ToolResult.failure(f"{self.name} failed: {exc.strerror or exc}")

    async def arun_validated(self, args: Any, ctx: ToolContext) -> ToolResult:
        """Like ``run_validated``, through ``arun`` when the tool has one."""
        if self.arun is None:
            return self.run_validated(args, ctx)
        try:
            return await self.arun(args, ctx)
        except ToolError as exc:
            return ToolResult.failure(str(exc))


@functools.lru_cache(maxsize=1024)
def _schema_of(args: type[ToolArgs]) -> dict[str, Any]:
    """Built once per argument type: pydantic builds it anew each call (~1 ms a tool), and each run lists them all."""
    return args.model_json_schema()


def _short_validation(exc: ValueError) -> str:
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return str(exc)
    problems = [f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()]
    return "; ".join(problems)
