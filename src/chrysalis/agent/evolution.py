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
from chrysalis.evolve.signature import InputField, OutputField, Signature
from chrysalis.stores import Context, Stores

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = [
    "AGENT_CONTEXT",
    "EvolutionResult",
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


async def evolve_agent(
    stores: Stores,
    *,
    model: str | Model | None = None,
    judge_model: str | Model | None = None,
    candidates: int = 2,
    replay: int = 6,
    margin: float = 0.05,
    priority: str | None = None,
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
) -> EvolutionResult:
    """Propose lessons from logged failures, score them against the current ones, keep a better one.

    Args:
        stores: Where the traces are read and the ``agent`` context is versioned.
        model: Writes proposals and plans (the configured model by default).
        judge_model: Scores plans; ``model`` by default.
        candidates: How many proposals to score.
        replay: How many logged failures form the replay set.
        margin: How much a candidate's mean score must beat the current one's.
        priority: Picks the compiled variant of the agent's own modules, if any.
        dry_run: Score but do not save.
        progress: Receives one line per step.
    """
    if replay < 1 or candidates < 0:
        raise ValueError(
            f"replay must be 1 or more and candidates 0 or more, got replay={replay}, candidates={candidates}"
        )
    say = progress or (lambda _line: None)
    failures = logged_failures(stores, limit=max(replay, 1))
    if not failures:
        return EvolutionResult(0, 0, None, (), None, None, 0)
    current = stores.context.load(AGENT_CONTEXT)
    proposer = agent_module("proposer", stores, priority=priority)
    planner = agent_module("planner", stores, priority=priority)
    judge = agent_module("judge", stores, priority=priority)
    calls = 0

    async def score(lessons: str, hints: str) -> Candidate:
        nonlocal calls
        results: list[float] = []
        for failure in failures[:replay]:
            plan = await planner.acall(model=model, lessons=lessons or "(none)", tool_hints=hints or "(none)",
                                       task=failure.task)  # fmt: skip
            verdict = await judge.acall(model=judge_model or model, task=failure.task, known_failure=failure.problem,
                                        plan=str(plan.plan))  # fmt: skip
            calls += 2
            results.append(min(1.0, max(0.0, float(verdict.score))))
        return Candidate(lessons, hints, statistics.fmean(results), tuple(results))

    say(f"{len(failures)} failed run(s) recorded; scoring the current lessons on {min(replay, len(failures))}")
    baseline = await score(current.system, current.tool_hints)
    say(f"current lessons score {baseline.score:.3f}")
    described = "\n\n".join(f.describe() for f in failures)
    scored: list[Candidate] = []
    for i in range(candidates):
        proposal = await proposer.acall(
            model=model,
            current_lessons=current.system or "(none)",
            current_tool_hints=current.tool_hints or "(none)",
            failures=described if i == 0 else _rotate(failures, i),
        )
        calls += 1
        lessons, hints = str(proposal.lessons).strip(), str(proposal.tool_hints).strip()
        if (lessons, hints) == (current.system.strip(), current.tool_hints.strip()) or not (lessons or hints):
            continue
        candidate = await score(lessons, hints)
        say(f"candidate {i + 1} scores {candidate.score:.3f}")
        scored.append(candidate)
    best = max(scored, key=lambda c: c.score, default=None)
    kept = best if best is not None and best.score >= baseline.score + margin else None
    version = None
    if kept is not None and not dry_run:
        version = stores.context.save(replace(current, system=kept.lessons, tool_hints=kept.tool_hints), AGENT_CONTEXT)
    return EvolutionResult(len(failures), min(replay, len(failures)), baseline, tuple(scored), kept, version, calls)


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
