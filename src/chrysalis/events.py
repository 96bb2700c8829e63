"""The events a run emits, in order; the terminal renderer, ``--json`` output and traces all read them.

One stream serves three readers, so what the user sees, what ``--json`` prints and what the trace
store keeps can never disagree. Each event is a frozen dataclass with a ``type`` tag; ``to_json``
gives the documented wire form (docs/events.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = [
    "ApprovalRequest",
    "Check",
    "ErrorEvent",
    "Event",
    "FrameworkCall",
    "JudgeVerdict",
    "PlanEnd",
    "PlanNodeEvent",
    "RedFlag",
    "Refine",
    "RepairEnd",
    "RepairRound",
    "RunResult",
    "Start",
    "StepVote",
    "TextDelta",
    "ToolCall",
    "ToolResultEvent",
    "fan_out",
]


def _now() -> float:
    return round(time.time(), 3)


@dataclass(frozen=True, kw_only=True)
class _Base:
    run_id: str
    ts: float = field(default_factory=_now)

    def to_json(self) -> dict[str, Any]:
        """The event as one JSON object (the ``--json`` line and the trace record)."""
        return asdict(self)


@dataclass(frozen=True, kw_only=True)
class Start(_Base):
    """A run began: what it was asked, under which settings, and what was learned to choose them."""

    type: Literal["start"] = "start"
    task: str
    model: str
    """The model that runs the task (the one ``auto`` picked, when the setting is ``auto``)."""
    mode: str
    level: int
    workspace: str
    task_type: str
    """The coarse task category the eval store learns per (``fix``, ``test``, ``explain``, ...)."""
    profile: str
    """The tool profile offered to the model."""
    profile_reason: str
    """Why that profile: configured, the default, or learned from the eval store."""
    model_reason: str | None = None
    """With ``model = "auto"``: which model was picked and each candidate's draw; else ``None``."""
    candidates: tuple[dict[str, Any], ...] | None = None
    """With ``model = "auto"``: each candidate's posterior (runs, successes, alpha, beta, mean, sample)."""
    priority: str = "best"
    """The ``--priority`` as given (a keyword or a sentence)."""
    priority_plan: dict[str, Any] | None = None
    """What the priority chose (``chrysalis.evolve.priority.PriorityPlan``): voting level, decomposition
    limits, cost weight for ``auto``, check retries, reasoning, prompt guidance, and the reason."""
    parent_run_id: str | None = None
    """For a sub-agent (``spawn_agent``): the run that started it; its events carry its own ``run_id``."""
    refine_model: str | None = None
    """With ``model = "auto"`` and a priority that refines: the stronger model that takes over when the
    check fails (a ``refine`` event says when); ``None`` when there is no such chain."""
    session_id: str | None = None
    """The stored session (conversation) the run belongs to: ``chrysalis run --resume ID`` goes on with it;
    ``None`` for a sub-agent or a durable run."""
    voting: dict[str, Any] | None = None
    """Voting in the run's own steps (``agent/step_vote.py``): ``level``, ``triggers`` on, ``success_rate``."""


@dataclass(frozen=True, kw_only=True)
class TextDelta(_Base):
    """A piece of the model's text, as it streams."""

    type: Literal["text_delta"] = "text_delta"
    text: str


@dataclass(frozen=True, kw_only=True)
class ToolCall(_Base):
    """The model asked for a tool; ``step`` counts model requests in this run."""

    type: Literal["tool_call"] = "tool_call"
    step: int
    call_id: str
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class ToolResultEvent(_Base):
    """A tool call finished (or was refused): ``ok`` with ``result``, or an ``error``."""

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    tool: str
    ok: bool
    result: Any = None
    error: str | None = None
    duration_ms: float = 0.0
    decision: str = "allow"
    """What the gates decided: ``allow``, ``approved`` / ``declined`` (asked), ``denied`` (by policy), or ``refused``
    (never reached the policy: an unknown tool, bad arguments, a repeated call)."""


@dataclass(frozen=True, kw_only=True)
class ModelCall(_Base):
    """One model request answered: the model, its tokens, what it cost and how long it took.

    The trace store's record per model call (seed 000); the ``final`` event has the run's totals.
    """

    type: Literal["model_call"] = "model_call"
    step: int
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_ms: float


@dataclass(frozen=True, kw_only=True)
class Compacted(_Base):
    """The conversation was compacted: older turns summarised into the system prompt, recent ones kept."""

    type: Literal["compaction"] = "compaction"
    turns_summarised: int
    tokens_before: int
    tokens_after: int
    summary_chars: int
    reason: str
    """``window`` (past ``compact_at`` of the model's window) or ``asked`` (``/compact``)."""


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest(_Base):
    """A call needs the user's approval; ``approved`` is the answer that was given."""

    type: Literal["approval_request"] = "approval_request"
    call_id: str
    tool: str
    args: dict[str, Any]
    reason: str
    approved: bool


@dataclass(frozen=True, kw_only=True)
class JudgeVerdict(_Base):
    """The security judge (``--judge MODEL``) labelled a command before the policy's answer was final."""

    type: Literal["judge"] = "judge"
    call_id: str
    tool: str
    model: str
    safe: bool
    """``[SAFE]``; ``False`` for ``[UNSAFE]``, no clear label, or a judge that could not answer."""
    reason: str
    duration_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class PlanNodeEvent(_Base):
    """A node of a decomposition plan (``chrysalis decompose``) was added or changed state."""

    type: Literal["plan_node"] = "plan_node"
    node_id: str
    parent_id: str | None
    task: str
    depth: int
    op: str
    """``decompose`` (split into children), ``spawn`` (a leaf for a sub-agent), ``inline`` (a leaf that may not be
    split: the depth limit or a rollback)."""
    profile: str
    status: str
    """``planned``, ``running``, ``done``, ``failed``, ``pruned`` (rolled back), ``cancelled``."""
    detail: str = ""
    """Why: the vote on the split, the explosion that pruned it, the sub-agent's answer or error."""
    agent_run_id: str | None = None
    """The sub-agent run that executes this leaf."""


@dataclass(frozen=True, kw_only=True)
class PlanEnd(_Base):
    """A decomposition finished: its phenotype, the explosions it rolled back from, whether it was archived."""

    type: Literal["plan_end"] = "plan_end"
    success: bool
    output: str
    phenotype: dict[str, float]
    explosions: tuple[str, ...] = ()
    archived: bool = False
    replayed: str | None = None
    """The archived task whose plan shape was offered to the planner as a hint, if any."""


@dataclass(frozen=True, kw_only=True)
class Refine(_Base):
    """Seed 001's draft→refine chain: the drafting model's check failed, a stronger model takes the conversation."""

    type: Literal["refine"] = "refine"
    draft_model: str
    model: str
    """The model that refines; the run goes on with it (same run id, same limits)."""
    reason: str
    """Why the draft did not stand (the failed check's problem)."""


@dataclass(frozen=True, kw_only=True)
class RepairRound(_Base):
    """One round of repair (``chrysalis fix``, the ``repair`` tool): where it sampled and what came of it."""

    type: Literal["repair_round"] = "repair_round"
    round: int
    suspects: tuple[dict[str, Any], ...]
    """The functions sampled for, best first: ``{path, function, start, end, score, lines}``."""
    samples: int
    """Candidates drawn this round (those that could not be applied or were red-flagged included)."""
    templates: int = 0
    """Template candidates (one-token edits, no model) tried this round, besides the samples."""
    passed: int
    """Candidates this round that passed the failing tests and then the whole suite."""
    unusable: int
    """Replies that could not be applied (bad line number, code that does not parse)."""
    unusable_by: dict[str, int] = field(default_factory=dict[str, int])
    """``unusable`` by kind (``candidates.discard_reason``): not_json, more_than_one_line, unchanged,
    does_not_parse, outside_the_function, not_placed, other."""
    flagged: dict[str, int]
    """Red flags raised this round, by flag."""
    seconds: float


@dataclass(frozen=True, kw_only=True)
class RepairEnd(_Base):
    """Repair finished: the patch it applied (or why none), and what it took."""

    type: Literal["repair_end"] = "repair_end"
    success: bool
    applied: bool
    """The winning patch was written to the workspace (with a checkpoint: ``chrysalis undo`` restores)."""
    path: str | None
    diff: str
    samples: int
    passed: int
    votes: int
    consensus: bool
    rounds: int
    tokens: int
    seconds: float
    problem: str | None = None
    templates: int = 0
    """Template candidates tried (one-token edits of the suspicious lines, validated like samples)."""
    cost_usd: float = 0.0
    """What the samples cost (0 on the embedded model); ``--budget`` stops the drawing when it is spent."""


@dataclass(frozen=True, kw_only=True)
class RedFlag(_Base):
    """The scaffold caught the model misbehaving (repeated call, protected file, malformed output)."""

    type: Literal["red_flag"] = "red_flag"
    kind: str
    detail: str


@dataclass(frozen=True, kw_only=True)
class FrameworkCall(_Base):
    """Chrysalis calls a tool itself, not the model: ``repair`` when the tests still fail or the model stalls.

    Its ``tool_call`` and ``tool_result`` events follow, through the same gates as the model's calls.
    """

    type: Literal["framework_call"] = "framework_call"
    tool: str
    call_id: str
    trigger: Literal["failed_check", "stalled"]
    reason: str
    """What the framework saw: the check's problem, or why the model's run was about to stop."""


@dataclass(frozen=True, kw_only=True)
class StepVote(_Base):
    """A critical step was voted on: several replies drawn for it, red-flagged ones redrawn, the leader kept."""

    type: Literal["vote"] = "vote"
    step: int
    trigger: Literal["destructive", "writes", "low_success_rate"]
    candidates: dict[str, int]
    """Each distinct reply (its normalised calls, shortened) and how many samples gave it."""
    winner: str
    flagged: dict[str, int]
    samples: int
    consensus: bool
    """False when the plurality won for want of samples, or every sample was flagged (the first reply stands)."""


@dataclass(frozen=True, kw_only=True)
class Check(_Base):
    """Chrysalis ran the project's tests itself after the model's answer: the verdict is ours, not the model's."""

    type: Literal["check"] = "check"
    command: str
    passed: bool
    exit_code: int | None
    """``None`` when the command could not run or timed out (``report`` says why)."""
    sandboxed: bool
    """Ran in the read-only sandbox (no network) rather than on the real workspace."""
    report: str
    """The tail of the command's output, or why it could not run."""


@dataclass(frozen=True, kw_only=True)
class RunResult(_Base):
    """How a run ended with an answer: returned by ``AgentSession.run`` and emitted as the ``final`` event.

    ``verified`` is the framework's verdict on the change, whatever the model claims: ``True`` when
    the run changed files and the project's tests (configured or detected) passed when Chrysalis ran
    them after the answer, ``False`` when they failed or could not run, ``None`` when nothing could
    check it (no files changed, or no test command exists). ``success`` is False exactly when
    ``verified`` is False, and then ``problem`` says why.
    """

    type: Literal["final"] = "final"
    output: str
    success: bool
    steps: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    duration_ms: float
    verified: bool | None = None
    problem: str | None = None
    """Why ``success`` is False although the model answered: the check failed or could not run."""


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(_Base):
    """The run stopped without an answer; ``reason`` is a short tag, ``message`` says what to do."""

    type: Literal["error"] = "error"
    reason: str
    message: str
    exit_code: int
    steps: int = 0


Event = (
    Start
    | TextDelta
    | ToolCall
    | ToolResultEvent
    | ModelCall
    | Compacted
    | ApprovalRequest
    | JudgeVerdict
    | RedFlag
    | FrameworkCall
    | StepVote
    | Check
    | RunResult
    | ErrorEvent
    | PlanNodeEvent
    | PlanEnd
    | Refine
    | RepairRound
    | RepairEnd
)


def fan_out(*listeners: Callable[[Event], None]) -> Callable[[Event], None]:
    """One listener that passes each event to every one of ``listeners``, in order."""
    if len(listeners) == 1:
        return listeners[0]

    def each(event: Event) -> None:
        for listener in listeners:
            listener(event)

    return each
