"""Generate-and-validate repair: localise, sample many candidates, validate each in a copy, vote, apply.

    localise   run the tests once under coverage; rank the suspicious functions (``localise.py``)
    sample     draw candidates for the top suspects, decorrelated by voter index (``candidates.py``)
    validate   each candidate in its own copy of the workspace: the failing tests first, then the
               whole suite, each under a timeout; validation runs in threads while sampling goes on
    choose     drop red-flagged candidates, vote on the normalised patch, prefer the smallest diff
    narrow     the winner's changes, each alone: one that passes without the others wins instead
    iterate    if none passes: the closest failures go back into the prompt, one more suspect is
               tried, and twice the samples are drawn, until ``max_samples`` or ``rounds``
    apply      the winner, with a checkpoint (``chrysalis undo``), if the caller's policy allows (``apply.py``)

Sampling stops early once ``k`` passing candidates agree (seed 001's first-to-k over the patches
that passed). Candidates with the same normalised form are validated once. Nothing touches the
workspace until the winner is applied, and only if the file is still as it was when repair began
and the caller's ``authorise`` allows the write.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from chrysalis.events import Event, RepairEnd, RepairRound
from chrysalis.llm.sampling import Sampler
from chrysalis.repair.apply import Authorise, allow_all, apply_winner
from chrysalis.repair.candidates import FORMS, Candidate, CandidateSource, Form, narrowings
from chrysalis.repair.choose import Choice, choose, contains, normalised, rank, red_flags, test_sources
from chrysalis.repair.evidence import LineEvidence
from chrysalis.repair.localise import Localisation, Suspect, hinted_first, localise
from chrysalis.repair.rounds import feedback, next_templates
from chrysalis.repair.slots import Slots
from chrysalis.repair.testrun import TestRun, WorkspaceCopy, run_tests
from chrysalis.repair.unusable import discard_reason
from chrysalis.stores.checkpoints import CheckpointStore
from chrysalis.tools.policy import Decision
from chrysalis.tools.sandbox import SandboxOptions
from chrysalis.voting import VotingConfig

__all__ = ["RepairConfig", "RepairReport", "Repairer"]

SAME_SUSPECT_RUN = 3
"""Samples drawn for one suspect before the next: its prompt stays in the KV cache (one turn of the forms)."""
MIN_TEST_SECONDS = 5.0
"""The shortest timeout of a candidate's test run: past the time limit, or however fast the buggy code's run was."""
SLOWER_THAN_BUGGY = 10.0
"""A candidate's test run may take this many times the buggy code's (localisation's): an endless loop costs seconds."""


@dataclass(frozen=True)
class RepairConfig:
    """How hard to try: samples per round (doubling each round), rounds, suspects, timeouts, the vote."""

    test_command: str
    samples: int = 10
    """Candidates drawn in the first round; each later round draws twice as many."""
    max_samples: int = 40
    rounds: int = 3
    suspects: int = 2
    """Suspects sampled in the first round; each later round adds one."""
    test_timeout: float = 60.0
    """Most seconds for one test run of one candidate (an infinite loop is a common wrong patch). A run also
    stops at ``SLOWER_THAN_BUGGY`` times as long as the buggy code's run took (``MIN_TEST_SECONDS`` at least)."""
    voting: VotingConfig = field(default_factory=lambda: VotingConfig.level("medium"))
    concurrency: int = 2
    """Candidates validated at once."""
    hint: str | None = None
    """A file or function name where the bug probably is: matching suspects go first."""
    templates: int = 40
    """Template candidates (``mutants.py``: one-token edits of the suspicious lines) validated per round; 0 for none."""
    forms: tuple[Form, ...] = FORMS
    """The edit forms each suspect's samples take in turn (``candidates.py``): ``line``, ``function``, ``diff``."""
    budget: float | None = None
    """USD the samples may cost (``Repairer``'s ``price``): once spent, no more are drawn (those drawn are judged)."""
    time_limit: float | None = None
    """Seconds for the whole repair: no sample is drawn that would not be done in time (judged by the slowest
    so far), no test run starts once it is spent, and those running are cut to the time left
    (``MIN_TEST_SECONDS`` at least). So a repair ends within seconds of it."""


@dataclass(frozen=True)
class RepairReport:
    """What repair did: the winner (if any), whether it was applied, and what it cost."""

    success: bool
    applied: bool
    winner: Candidate | None
    localisation: Localisation
    samples: int
    """Candidates the model drew."""
    passed: int
    votes: int
    consensus: bool
    rounds: int
    tokens: int
    seconds: float
    flagged: dict[str, int]
    problem: str | None = None
    templates: int = 0
    """Template candidates tried (``mutants.py``), besides the samples."""
    cost: float = 0.0
    """USD the samples cost."""
    refusal: Decision | None = None
    """Why a winner that passed was not applied: the caller's policy (a deny rule, the level or mode, approval
    declined or nobody to ask). ``success`` stays True: the patch is in ``winner`` to apply by hand."""


@dataclass
class _Verdict:
    passed: bool
    run: TestRun


class Repairer:
    """Repairs one workspace's failing tests with one model."""

    def __init__(
        self,
        workspace: Path,
        sampler: Sampler,
        config: RepairConfig,
        *,
        options: SandboxOptions | None = None,
        checkpoints: CheckpointStore | None = None,
        run_id: str = "repair",
        emit: Callable[[Event], None] | None = None,
        price: Callable[[int, int], float] | None = None,
        authorise: Authorise = allow_all,
    ) -> None:
        """``price`` turns a sample's (input, output) tokens into USD for ``config.budget`` (none: samples are free).

        ``authorise`` is asked before the winner is written (``apply.py``); the default allows every patch.
        """
        self.workspace = workspace.resolve()
        self.authorise = authorise
        self.price = price
        self.sampler = sampler
        self.config = config
        self.options = options or SandboxOptions()
        self.checkpoints = checkpoints
        self.run_id = run_id
        self.emit = emit or (lambda _event: None)
        self._verdicts: dict[str, asyncio.Future[_Verdict]] = {}
        """One validation per normalised form, shared by every candidate of that form."""
        self._keys: dict[asyncio.Task[tuple[Candidate, _Verdict]], str] = {}
        self._candidates: dict[asyncio.Task[tuple[Candidate, _Verdict]], Candidate] = {}
        self._slots = Slots(config.concurrency)
        """Candidate test runs at once; the runs of a form the vote waits for go first."""
        self._deadline = float("inf")
        """When the time limit runs out: no more drawing, and test runs are cut to the time left."""
        self._run_limit = config.test_timeout
        """One test run's timeout: ``test_timeout``, or less once the buggy code's run is timed."""
        self._evidence = LineEvidence()
        """How the failing tests reacted to each line's template edits: which line the model is asked about."""

    @property
    def run_limit(self) -> float:
        """One candidate test run's timeout (before the deadline cuts it): known once localisation has run."""
        return self._run_limit

    async def run(self, *, apply: bool = True) -> RepairReport:
        """Repair the failing tests; with ``apply``, write the winning patch to the workspace."""
        started = time.perf_counter()
        cfg = self.config
        located = await asyncio.to_thread(localise, self.workspace, cfg.test_command, self.options, cfg.test_timeout)
        buggy_run = time.perf_counter() - started
        self._run_limit = min(cfg.test_timeout, max(MIN_TEST_SECONDS, SLOWER_THAN_BUGGY * buggy_run))
        if located.run.ok:
            return self._end(located, started, problem="the tests already pass: nothing to repair")
        if not located.suspects:
            return self._end(located, started, problem="no suspect: the failing tests reach no code outside the tests")
        located = hinted_first(located, cfg.hint)
        originals = {s.path: (self.workspace / s.path).read_text(encoding="utf-8") for s in located.suspects}
        source = CandidateSource(self.sampler, self.workspace, located.run.output, cfg.forms, self.price)
        self._evidence = source.evidence = LineEvidence(located.run.failed, located.run.output)
        tests = test_sources(self.workspace)
        passing: list[Candidate] = []
        failing: list[tuple[Candidate, TestRun]] = []
        flagged: Counter[str] = Counter()
        drawn = tokens = rounds = made = 0
        cost = slowest = 0.0
        stopped: str | None = None  # the limit that stopped the drawing early
        templates: dict[tuple[Suspect, bool], Iterator[Candidate]] = {}
        hint = ""
        self._deadline = started + cfg.time_limit if cfg.time_limit is not None else float("inf")
        for round_no in range(cfg.rounds):
            quota = min(cfg.samples * 2**round_no, cfg.max_samples - drawn)  # samples this round
            suspects = located.suspects[: cfg.suspects + round_no]
            batch = next_templates(source, suspects, templates, cfg.templates, made, variables=round_no > 0)
            if (quota <= 0 and not batch) or self._spent(time.perf_counter(), cost) is not None:
                break
            rounds += 1
            round_started = time.perf_counter()
            unusable, round_flags, round_drawn = Counter[str](), Counter[str](), 0
            made += len(batch)
            tasks = self._schedule_all(batch, originals, tests, located.run.failed, round_flags)
            for j in range(quota):
                suspect = suspects[(j // SAME_SUSPECT_RUN) % len(suspects)]
                candidate, stopped = await self._next_sample(source, suspect, made, hint, slowest, cost)
                if candidate is None:
                    break
                drawn, made, round_drawn = drawn + 1, made + 1, round_drawn + 1
                tokens += candidate.tokens
                cost += candidate.cost
                slowest = max(slowest, candidate.seconds)
                if candidate.new_text is None:
                    unusable[discard_reason(candidate.problem)] += 1
                    continue
                flags = red_flags(candidate, originals[candidate.suspect.path], tests)
                if flags:
                    round_flags.update(flags)
                    continue
                task = self._schedule(candidate, located.run.failed)
                tasks.append(task)
                if await self._agreed(tasks, normalised(candidate)):
                    break
            results = await self._settle(tasks)
            passing += [c for c, v in results if v.passed]
            failing += [(c, v.run) for c, v in results if not v.passed]
            flagged.update(round_flags)
            self.emit(
                RepairRound(
                    run_id=self.run_id,
                    round=rounds,
                    suspects=tuple(s.to_json() for s in suspects),
                    samples=round_drawn,
                    templates=len(batch),
                    passed=sum(v.passed for _, v in results),
                    unusable=sum(unusable.values()),
                    unusable_by=dict(unusable),
                    flagged=dict(round_flags),
                    seconds=round(time.perf_counter() - round_started, 2),
                )
            )
            if passing:
                break
            hint = feedback(failing)
        choice: Choice | None = None
        if passing:
            passing += await self._narrowed(passing, originals, tests, located.run.failed, made)
            choice = choose(passing, cfg.voting)
            applied, refusal, problem = await self._apply(choice.winner, originals[choice.winner.suspect.path], apply)
        else:
            limit = self._spent(time.perf_counter(), cost) or stopped
            spent = f" before the {limit}" if limit else ""
            tried = f", {made - drawn} templates tried" if made > drawn else ""
            applied, refusal, problem = False, None, f"no candidate passed the tests ({drawn} drawn{tried}{spent})"
        return self._end(
            located,
            started,
            winner=choice.winner if choice else None,
            applied=applied,
            samples=drawn,
            templates=made - drawn,
            tokens=tokens,
            cost=cost,
            rounds=rounds,
            flagged=flagged,
            passed=len(passing),
            votes=choice.votes if choice else 0,
            consensus=choice.consensus if choice else False,
            problem=problem,
            refusal=refusal,
        )

    async def _apply(self, winner: Candidate, original: str, apply: bool) -> tuple[bool, Decision | None, str | None]:
        """Write ``winner`` if asked and allowed: (applied, the policy's refusal, the problem if the file changed)."""
        if not apply:
            return False, None, None
        applied, refusal = await apply_winner(
            self.workspace, winner, original, authorise=self.authorise, checkpoints=self.checkpoints, run_id=self.run_id
        )
        changed = not applied and refusal is None
        return applied, refusal, f"{winner.suspect.path} changed while repair ran; not applied" if changed else None

    async def _next_sample(
        self, source: CandidateSource, suspect: Suspect, index: int, hint: str, slowest: float, cost: float
    ) -> tuple[Candidate | None, str | None]:
        """The next sample, or None and the limit that stops the drawing (``"time limit"``, ``"budget"``).

        No sample starts that would end past the limit at the slowest pace so far, and one in flight
        when the limit runs out is stopped (the model stops at its next token): under load, or when the
        model writes up to its token cap, one sample can take minutes, and waiting for it would run the
        repair that far past its limit.
        """
        stopped = self._spent(time.perf_counter() + slowest, cost)
        if stopped is not None:
            return None, stopped
        left = self._deadline - time.perf_counter()
        try:
            timeout = None if left == float("inf") else max(left, 0.0)
            return await asyncio.wait_for(source.draw(suspect, index, hint=hint), timeout=timeout), None
        except TimeoutError:
            return None, "time limit"

    def _spent(self, now: float, cost: float) -> str | None:
        """Which limit has run out (``"time limit"``, ``"budget"``), or None: then no more candidates are drawn."""
        if now >= self._deadline:
            return "time limit"
        if self.config.budget is not None and cost >= self.config.budget:
            return "budget"
        return None

    async def _narrowed(
        self, passing: list[Candidate], originals: dict[str, str], tests: list[str], failed: tuple[str, ...], index: int
    ) -> list[Candidate]:
        """The vote's winner's changes that pass alone (``narrowings``): ``choose`` then prefers them to the winner."""
        winner = choose(passing, self.config.voting).winner
        original = originals[winner.suspect.path]
        pieces = [piece for piece in narrowings(original, winner, index) if not red_flags(piece, original, tests)]
        results = await asyncio.gather(*(self._schedule(piece, failed) for piece in pieces))
        return [candidate for candidate, verdict in results if verdict.passed]

    def _schedule_all(
        self,
        batch: list[Candidate],
        originals: dict[str, str],
        tests: list[str],
        failed: tuple[str, ...],
        flagged: Counter[str],
    ) -> list[asyncio.Task[tuple[Candidate, _Verdict]]]:
        """Queue the template candidates for validation (before any sample: they cost a test run, no tokens)."""
        tasks = []
        for candidate in batch:
            flags = red_flags(candidate, originals[candidate.suspect.path], tests)
            flagged.update(flags)
            if not flags:
                tasks.append(self._schedule(candidate, failed))
        return tasks

    async def _agreed(self, tasks: list[asyncio.Task[tuple[Candidate, _Verdict]]], key: str) -> bool:
        """``k`` candidates of the newest one's normalised form passed: drawing more would not change the vote.

        Once ``k`` candidates of one form are drawn, sampling waits for their (single, shared)
        validation rather than drawing on: if they pass, the vote is decided. That validation starts
        next (``Slots.hurry``), before the template candidates queued ahead of it.
        """
        if sum(1 for task in tasks if self._keys[task] == key) < self.config.voting.k:
            return False
        self._slots.hurry(key)  # not behind the templates queued before it
        return (await asyncio.shield(self._verdicts[key])).passed

    def _schedule(self, candidate: Candidate, failed: tuple[str, ...]) -> asyncio.Task[tuple[Candidate, _Verdict]]:
        """Start validating ``candidate`` (once per normalised form; the others share that verdict)."""
        key = normalised(candidate)
        if key not in self._verdicts or self._verdicts[key].cancelled():
            self._verdicts[key] = asyncio.ensure_future(self._gated(candidate, failed))
        shared = self._verdicts[key]

        async def verdict() -> tuple[Candidate, _Verdict]:
            return candidate, await asyncio.shield(shared)

        task = asyncio.create_task(verdict())
        self._keys[task] = key
        self._candidates[task] = candidate
        return task

    async def _settle(self, tasks: list[asyncio.Task[tuple[Candidate, _Verdict]]]) -> list[tuple[Candidate, _Verdict]]:
        """The round's verdicts, leaving out the validations that could no longer change the vote.

        ``choose`` ranks a passing form by (votes, smaller diff, earlier candidate). Once a form has
        passed, a form still waiting for its test run whose rank is lower loses whatever its verdict
        (unless its change lies inside a passed one's, ``contains``: then it would win), so its run is
        cancelled (most often the rest of the templates, once a sample agreed with
        one). The winner is the one waiting for every verdict would give; only ``passed`` counts less.
        """
        forms: dict[str, list[Candidate]] = {}
        for task in tasks:
            forms.setdefault(self._keys[task], []).append(self._candidates[task])
        ranks = {key: rank(len(candidates), candidates) for key, candidates in forms.items()}
        results: dict[asyncio.Task[tuple[Candidate, _Verdict]], tuple[Candidate, _Verdict]] = {}
        best: tuple[int, int, int] | None = None
        passed: list[Candidate] = []
        pending = set(tasks)
        while pending:
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                results[task] = task.result()
                if task.result()[1].passed:
                    passed.append(self._candidates[task])
                    if best is None or ranks[self._keys[task]] > best:
                        best = ranks[self._keys[task]]
            if best is None:
                continue
            hopeless = {
                task
                for task in pending
                if ranks[self._keys[task]] < best and not any(contains(done, self._candidates[task]) for done in passed)
            }
            for task in hopeless:
                task.cancel()
                self._verdicts[self._keys[task]].cancel()
            pending -= hopeless
        return [results[task] for task in tasks if task in results]

    async def _gated(self, candidate: Candidate, failed: tuple[str, ...]) -> _Verdict:
        async with self._slots.slot(normalised(candidate)):
            if time.perf_counter() >= self._deadline:
                return _Verdict(False, TestRun(self.config.test_command, None, "not run: the time limit was spent"))
            verdict = await asyncio.to_thread(self._validate, candidate, failed)
            self._evidence.learn(
                candidate.suspect.path, candidate.line, verdict.run
            )  # a template: a mutant of its line
            return verdict

    def _validate(self, candidate: Candidate, failed: tuple[str, ...]) -> _Verdict:
        """In a fresh copy of the workspace: the failing tests first, then the whole suite."""
        assert candidate.new_text is not None
        cfg = self.config
        with WorkspaceCopy(self.workspace) as copy:
            (copy.root / candidate.suspect.path).write_text(candidate.new_text, encoding="utf-8")
            first = run_tests(cfg.test_command, copy.root, self.options, self._timeout(), only=failed)
            if not first.ok:
                return _Verdict(False, first)
            whole = run_tests(cfg.test_command, copy.root, self.options, self._timeout())
            return _Verdict(whole.ok, whole)

    def _timeout(self) -> float:
        """One test run's timeout: the run limit, cut to the time left before the deadline (a few seconds at least)."""
        return min(self._run_limit, max(MIN_TEST_SECONDS, self._deadline - time.perf_counter()))

    def _end(
        self,
        located: Localisation,
        started: float,
        *,
        winner: Candidate | None = None,
        applied: bool = False,
        samples: int = 0,
        templates: int = 0,
        tokens: int = 0,
        cost: float = 0.0,
        rounds: int = 0,
        flagged: Counter[str] | None = None,
        passed: int = 0,
        votes: int = 0,
        consensus: bool = False,
        problem: str | None = None,
        refusal: Decision | None = None,
    ) -> RepairReport:
        seconds = round(time.perf_counter() - started, 2)
        success = winner is not None and problem is None
        report = RepairReport(
            success,
            applied,
            winner,
            located,
            samples,
            passed,
            votes,
            consensus,
            rounds,
            tokens,
            seconds,
            dict(flagged or {}),
            problem,
            templates,
            round(cost, 6),
            refusal,
        )
        self.emit(
            RepairEnd(
                run_id=self.run_id,
                success=success,
                applied=applied,
                path=winner.suspect.path if winner else None,
                diff=winner.diff if winner else "",
                samples=samples,
                templates=templates,
                passed=passed,
                votes=votes,
                consensus=consensus,
                rounds=rounds,
                tokens=tokens,
                cost_usd=round(cost, 6),
                seconds=seconds,
                problem=problem,
            )
        )
        return report
