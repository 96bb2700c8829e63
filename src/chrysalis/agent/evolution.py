"""Agent evolution: learn standing lessons and tool hints from logged failures, keep only improvements.

Seed 000 evolves the agent's own system prompt (GEPA on ``Ctx.system``) and keeps an archive of
versions to roll back to. Here:

1. **Failures** come from the trace store: runs that ended without success (a ``final`` event with
   ``success: false`` and its ``problem``, or an ``error`` event), with their red flags and failed
   tool calls, i.e. what went wrong in the agent's own words.
2. **Proposals**: the meta model reads the current lessons and tool hints and those failures
   (``ProposeAgentLessons``) and writes new ones.
3. **Scoring on a replay set with a judge**: for each recent task (failures first), the planner
   module, given the candidate lessons, writes the first steps it would take; the judge module
   rates whether they solve the task and avoid the logged failure. The current lessons are scored
   the same way, on the same tasks.
4. **Keep only improvements**: a candidate must beat the current lessons by ``margin``; then it is
   saved as the next version of the ``agent`` context (versioned: ``history`` lists them and
   ``rollback`` makes an older one current again, as a new version, so nothing is lost).

The planner, judge and proposer are modules, so they are picked like any compiled module: if an
archive named ``agent.planner``/``agent.judge``/``agent.proposer`` exists (``chrysalis compile``),
its variant for the run's priority is used instead of the built-in one (``agent_module``).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from chrysalis.agent.prompts import AGENT_CONTEXT
from chrysalis.evolve.module import Module, Predict
from chrysalis.evolve.options import OptionError, check_count
from chrysalis.evolve.signature import InputField, OutputField, Signature
from chrysalis.stores import Context, Stores

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = [
    "AGENT_CONTEXT",
    "EvolutionResult",
    "EvolveOptions",
    "Failure",
    "agent_module",
    "evolve_agent",
    "logged_failures",
    "rollback",
]


class ProposeAgentLessons(Signature):
    """You improve the standing instructions of a coding agent that works with tools in a repository.

    Read its current lessons and tool hints and the runs that failed, then write lessons and tool
    hints that would have avoided those failures. Each lesson is one short imperative line. Keep
    what still helps, drop what does not, at most eight lines each. Be general: no file names from
    the failures.
    """

    current_lessons: str = InputField()
    current_tool_hints: str = InputField()
    failures: str = InputField(desc="the failed runs: task, what went wrong, red flags")
    lessons: str = OutputField(desc="the new lessons, one per line")
    tool_hints: str = OutputField(desc="the new tool hints, one per line")


class PlanFirstSteps(Signature):
    """You are a coding agent with tools (read_file, list_dir, grep, edit_file, write_file, run_tests).

    Say in at most five short numbered steps what you would do for the task, following the lessons
    and tool hints.
    """

    lessons: str = InputField()
    tool_hints: str = InputField()
    task: str = InputField()
    plan: str = OutputField(desc="at most five numbered steps")


class JudgePlan(Signature):
    """You judge a coding agent's plan for a task.

    Score from 0.0 to 1.0 how likely the plan is to complete the task correctly, and lower the
    score if it repeats the mistake described under known_failure.
    """

    task: str = InputField()
    known_failure: str = InputField(desc="what went wrong when this task was tried before, or 'none'")
    plan: str = InputField()
    score: float = OutputField(desc="from 0.0 to 1.0")
    reason: str = OutputField(desc="one sentence")


_BUILT_IN: dict[str, type[Signature]] = {
    "proposer": ProposeAgentLessons,
    "planner": PlanFirstSteps,
    "judge": JudgePlan,
}


@dataclass(frozen=True)
class Failure:
    """One failed run, as the traces tell it."""

    run_id: str
    task: str
    problem: str

    def describe(self) -> str:
        """A short paragraph for the proposer and the judge."""
        return f"task: {self.task}\nwhat went wrong: {self.problem}"


@dataclass(frozen=True)
class Candidate:
    """Lessons and hints with their mean judge score on the replay set."""

    lessons: str
    tool_hints: str
    score: float
    scores: tuple[float, ...]


@dataclass(frozen=True)
class EvolutionResult:
    """What one ``evolve_agent`` call did."""

    failures: int
    replay: int
    current: Candidate | None
    candidates: tuple[Candidate, ...]
    kept: Candidate | None
    """The improvement that was saved, or ``None`` when no candidate beat the current lessons."""
    version: int | None
    """The ``agent`` context version saved (``None`` when nothing was kept or it was a dry run)."""
    calls: int


def agent_module(role: str, stores: Stores, *, priority: str | None = None) -> Module:
    """The module the agent uses for ``role`` (``proposer``, ``planner``, ``judge``).

    A compiled archive named ``agent.ROLE`` in ``stores`` wins, through priority selection;
    otherwise the built-in ``Predict`` of the role's signature.
    """
    from chrysalis.evolve.archive import ModuleArchive
    from chrysalis.evolve.selection import select

    signature = _BUILT_IN[role]
    saved = stores.archives.load(f"agent.{role}")
    if saved is None:
        return Predict(signature, params={"max_tokens": 400})
    archive = ModuleArchive.from_json(saved.data, signature=signature, version=saved.version)
    return select(archive, priority).point.module


def logged_failures(stores: Stores, *, limit: int = 12, scan: int = 200) -> list[Failure]:
    """The most recent failed runs (newest first) with what went wrong, from the trace store."""
    failures: list[Failure] = []
    for run in stores.traces.runs(limit=scan):
        if run.success is True or not run.task or run.status == "unfinished":
            continue
        problem = _problem(stores.traces.events(run.run_id))
        if problem:
            failures.append(Failure(run.run_id, run.task, problem))
        if len(failures) >= limit:
            break
    return failures


def _problem(events: list[dict[str, Any]]) -> str:
    notes: list[str] = []
    for event in events:
        kind = event.get("type")
        if kind == "final" and not event.get("success"):
            notes.append(str(event.get("problem") or "ended without success"))
        elif kind == "error":
            notes.append(f"stopped ({event.get('reason')}): {event.get('message')}")
        elif kind == "red_flag":
            notes.append(f"red flag {event.get('kind')}: {str(event.get('detail'))[:160]}")
        elif kind == "tool_result" and not event.get("ok"):
            notes.append(f"{event.get('tool')} failed: {str(event.get('error'))[:160]}")
    return "; ".join(dict.fromkeys(notes))[:800]


@dataclass(frozen=True, kw_only=True)
class EvolveOptions:
    """What one ``evolve_agent`` step tries and whether it saves; the stores and the models are arguments."""

    candidates: int = 2
    """Proposals the meta model writes and the judge scores (0 scores only the current lessons); 2 by default."""
    replay: int = 6
    """Logged failures, newest first, that every candidate is scored on; at least 1, 6 by default."""
    margin: float = 0.05
    """How much, from 0 to 1, a candidate's mean judge score must beat the current lessons' by; 0.05 by default."""
    priority: str | None = None
    """Picks the compiled variant of the agent's own modules (``agent.planner`` ...), if any; the best by default."""
    dry_run: bool = False
    """Score the candidates but save nothing; False by default."""
    judge_model: str | None = None
    """The model that scores plans, by name (``provider:name``); the proposing model by default."""

    def __post_init__(self) -> None:
        check_count("candidates", self.candidates)
        check_count("replay", self.replay, least=1)
        margin = self.margin
        if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 <= margin <= 1:
            raise OptionError("margin", margin, "a number from 0 to 1")
        for option in ("priority", "judge_model"):
            value = getattr(self, option)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise OptionError(option, value, "a non-empty string")
        if not isinstance(self.dry_run, bool):
            raise OptionError("dry_run", self.dry_run, "True or False")


async def evolve_agent(
    stores: Stores,
    options: EvolveOptions | None = None,
    *,
    model: str | Model | None = None,
    judge_model: str | Model | None = None,
    progress: Callable[[str], None] | None = None,
) -> EvolutionResult:
    """Propose lessons from logged failures, score them against the current ones, keep a better one.

    Args:
        stores: Where the traces are read and the ``agent`` context is versioned.
        options: How many candidates, the replay set, the margin, the priority, a dry run
            (``EvolveOptions()`` by default).
        model: Writes proposals and plans (the configured model by default).
        judge_model: Scores plans: this model, else ``options.judge_model``, else ``model``.
        progress: Receives one line per step.
    """
    options = options if options is not None else EvolveOptions()
    say = progress or (lambda _line: None)
    failures = logged_failures(stores, limit=options.replay)
    if not failures:
        return EvolutionResult(0, 0, None, (), None, None, 0)
    current = stores.context.load(AGENT_CONTEXT)
    judge = judge_model if judge_model is not None else options.judge_model or model
    replay = _Replay(
        failures,
        agent_module("planner", stores, priority=options.priority),
        agent_module("judge", stores, priority=options.priority),
        model,
        judge,
    )
    proposer = agent_module("proposer", stores, priority=options.priority)
    say(f"{len(failures)} failed run(s) recorded; scoring the current lessons on {len(failures)}")
    baseline = await replay.score(current.system, current.tool_hints)
    say(f"current lessons score {baseline.score:.3f}")
    scored: list[Candidate] = []
    for i in range(options.candidates):
        lessons, hints = await _propose(proposer, model, current, failures, i)
        replay.calls += 1
        if (lessons, hints) == (current.system.strip(), current.tool_hints.strip()) or not (lessons or hints):
            continue
        candidate = await replay.score(lessons, hints)
        say(f"candidate {i + 1} scores {candidate.score:.3f}")
        scored.append(candidate)
    best = max(scored, key=lambda c: c.score, default=None)
    kept = best if best is not None and best.score >= baseline.score + options.margin else None
    version = None
    if kept is not None and not options.dry_run:
        version = stores.context.save(replace(current, system=kept.lessons, tool_hints=kept.tool_hints), AGENT_CONTEXT)
    return EvolutionResult(len(failures), len(failures), baseline, tuple(scored), kept, version, replay.calls)


@dataclass
class _Replay:
    """The replay set and how lessons are scored on it: the planner plans each task, the judge rates the plan."""

    failures: list[Failure]
    planner: Module
    judge: Module
    model: str | Model | None
    judge_model: str | Model | None
    calls: int = 0
    """Model calls so far (the proposals' included: ``evolve_agent`` counts them here too)."""

    async def score(self, lessons: str, hints: str) -> Candidate:
        """The mean judge score of ``lessons`` and ``hints`` over the replay set."""
        results: list[float] = []
        for failure in self.failures:
            plan = await self.planner.acall(
                model=self.model, lessons=lessons or "(none)", tool_hints=hints or "(none)", task=failure.task
            )
            verdict = await self.judge.acall(
                model=self.judge_model, task=failure.task, known_failure=failure.problem, plan=str(plan.plan)
            )
            self.calls += 2
            results.append(min(1.0, max(0.0, float(verdict.score))))
        return Candidate(lessons, hints, statistics.fmean(results), tuple(results))


async def _propose(
    proposer: Module, model: str | Model | None, current: Context, failures: list[Failure], i: int
) -> tuple[str, str]:
    """Proposal ``i``: lessons and tool hints from the failures, rotated by ``i`` so proposals differ."""
    proposal = await proposer.acall(
        model=model,
        current_lessons=current.system or "(none)",
        current_tool_hints=current.tool_hints or "(none)",
        failures=_rotate(failures, i),
    )
    return str(proposal.lessons).strip(), str(proposal.tool_hints).strip()


def _rotate(failures: list[Failure], by: int) -> str:
    """The failures in another order, so a second proposal is not the first one again."""
    shifted = failures[by % len(failures) :] + failures[: by % len(failures)]
    return "\n\n".join(f.describe() for f in shifted)


def history(stores: Stores) -> list[tuple[int, float, Context]]:
    """Every saved version of the agent's lessons, oldest first."""
    return [(v, at, stores.context.load(AGENT_CONTEXT, v)) for v, at in stores.context.versions(AGENT_CONTEXT)]


def rollback(stores: Stores, version: int) -> int:
    """Make ``version`` current again by saving it as the newest version; returns the new version.

    Raises:
        KeyError: no such version; the message lists the saved ones.
    """
    saved = [v for v, _ in stores.context.versions(AGENT_CONTEXT)]
    if version not in saved and version != 0:
        raise KeyError(f"the agent's lessons have no version {version}; saved versions: {saved or 'none'} (0 = none)")
    old = Context() if version == 0 else stores.context.load(AGENT_CONTEXT, version)
    return stores.context.save(old, AGENT_CONTEXT)
