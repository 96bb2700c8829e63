"""Repair benchmark: the plain agent loop against generate-and-validate repair, on one-line bugs.

Two sets, always reported side by side (``--sets``): ``dev``, ``bench/bugs`` (see ``repair_bugs.py``:
41 small classic algorithms, one injected bug each), which repair was built and tuned on; and
``heldout``, ``bench/bugs_heldout``, written apart by someone who had not read repair's code or the
dev set, and never used to choose anything. For every bug and every configuration, a fresh
workspace (the buggy program, its tests, a git commit) gets one attempt:

- ``loop``: the agent (``chrysalis run`` as a library, coder tools, level 3, no approval prompts)
  without the ``repair`` tool, told to make the failing tests pass; its timeout is the time limit.
- ``repair-N``: ``chrysalis.repair.Repairer`` with N samples in the first round (each later round
  doubles it, up to 7N over three rounds), 40 template candidates per round (one-token edits of
  the suspicious lines, no model: ``chrysalis/repair/mutants.py``) and the same time limit.
- ``templates``: the template candidates alone (no samples): what the model adds is the difference.
- ``model-N`` (not in the default set): ``repair-N`` without templates, the model alone.
- ``repair-N@FORMS`` / ``model-N@FORMS``: the same with another turn of edit forms than the default
  ``line,function,line`` (e.g. ``repair-10@line,function,diff`` adds the unified-diff form).
- ``agent`` (not in the default set): the agent with its ``repair`` tool, as ``make demo`` runs it.
- ``loop@VOTING`` / ``agent@VOTING``: the same run with ``--voting VOTING`` (``none`` … ``critical``;
  without it, ``auto``: the default priority's level). ``loop@none;loop@medium`` is the agent's loop
  with voting on its own critical steps off and on (issue 35, item 5).

Every outcome is judged here, after the attempt, by the same rule: **tests pass** when the
workspace's tests pass and the test file is unchanged; **fixed** when, besides, the program agrees
with the reference (the correct program) on 500 generated inputs (the bug folder's
``differential.py``, which repair never sees: ``differential.py`` here); **overfit** when the tests
pass but the program disagrees (a wrong fix the tests cannot tell from a right one); **clean** when
the program's diff touches only the bug's line (``Bug.is_clean``); **exact** when the program is the
original again. ``said_done`` is the attempt's own claim of success (the run's ``success``, repair's
report); ``said_done_failing`` counts the claims made while the tests still failed. A loop row's
``answered`` says whether the run ended with an answer at all (its check may then have said the
tests fail), and its tokens come from the eval store, so a run stopped by the time limit counts
what it used.

    python bench/repair.py [--model local:qwen2.5-coder-1.5b] [--configs loop,templates,repair-1,...,repair-20]
                           [--sets dev,heldout] [--bugs a,b] [--limit N] [--time-limit 160] [--resume]
                           [--drop-load L] [--out PATH]

Rows are written to ``bench/results/repair.json`` after each attempt, so an interrupted run keeps
what it measured and ``--resume`` carries on (also with other ``--configs``: its rows are kept, and
the summary covers every configuration in the file). The table compares configurations on the bugs every
one of them attempted. Each row records the 1-minute load when it ended (``load_1m``: times depend on
how busy the two cores were); ``--resume --drop-load L`` redoes the rows measured above load ``L``.
Stores and traces go to a temporary ``CHRYSALIS_HOME``, a fresh one for every attempt: an attempt never
reads what earlier ones recorded (before 2026-11-28 one home served the whole run, so after three
failed agent runs the eval store's record switched on voting at every step, ``low_success_rate``, even
for ``loop@none``). The weights come from ``$CHRYSALIS_MODEL_CACHE`` or the real home's ``models/``.
The bugs' tests run with ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``: their projects need no plugin, and
this checkout's (hypothesis, schemathesis, ...) made each test run start in 5 s instead of 0.6 s
before 2026-11-27, so results files from before then had about 8 times fewer candidates tested in
the same 160 s.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import functools
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from chrysalis.config import load_settings
from differential import differential_check
from egress import provenance
from homes import fresh_home
from repair_bugs import SETS, TEST_COMMAND, Bug, load, load_all, suite_passes

RESULTS = Path(__file__).parent / "results" / "repair.json"
DEFAULT_CONFIGS = ("loop", "templates", "repair-1", "repair-5", "repair-10", "repair-20")
TEMPLATES = 40
"""Template candidates per round in ``repair-N`` and ``templates`` (``RepairConfig.templates``'s default)."""
TASK = "The tests in tests/ fail. Fix the bug in the program so that they pass; do not change the tests."
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]


def _git(workspace: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=workspace, capture_output=True, text=True, check=True).stdout


def _workspace(bug: Bug, root: Path) -> Path:
    workspace = bug.materialise(root / bug.name)
    _git(workspace, "init", "-q")
    _git(workspace, "add", "-A")
    _git(workspace, "commit", "-q", "-m", "buggy")
    return workspace


def _settings(model: str, workspace: Path, time_limit: float, voting: str = "auto") -> Any:
    return load_settings(
        {
            "model": model,
            "workspace": str(workspace),
            "level": 3,
            "yes": True,
            "timeout": time_limit,
            "mode": "code",
            "voting": voting,
        }
    )


def loop_settings(config: str) -> tuple[bool, str] | None:
    """``(with_repair, voting)`` of an agent configuration (``loop``, ``agent``, each ``@VOTING``), else None."""
    name, _, voting = config.partition("@")
    if name not in ("loop", "agent"):
        return None
    from chrysalis.voting import LEVELS

    if voting and voting not in LEVELS:
        raise SystemExit(f"unknown voting level {voting!r} in configuration {config!r}: use one of {', '.join(LEVELS)}")
    return name == "agent", voting or "auto"


def run_loop(
    bug: Bug, workspace: Path, model: str, time_limit: float, *, with_repair: bool, voting: str = "auto"
) -> dict[str, Any]:
    """One agent run; ``with_repair`` keeps its ``repair`` tool (else the coder tools alone); ``voting`` is its level.

    ``said_done`` is the run's own verdict (``success``: it answered and its final check did not
    fail); ``answered`` is whether it ended with an answer at all. Tokens come from the eval store,
    which logs the run's tally however it ends (a run stopped by the time limit included).
    """
    from chrysalis.agent.session import AgentSession
    from chrysalis.events import Event, Start, StepVote
    from chrysalis.tools.registry import profile_tools

    run_ids: list[str] = []
    votes: list[StepVote] = []

    def note(event: Event) -> None:
        if isinstance(event, Start):
            run_ids.append(event.run_id)
        elif isinstance(event, StepVote):
            votes.append(event)

    settings = _settings(model, workspace, time_limit, voting)
    session = AgentSession(settings, on_event=note, tools=None if with_repair else profile_tools("coder"))
    answered = success = False
    try:
        result = asyncio.run(session.run(TASK))
        answered, success = True, result.success
    except Exception as error:  # a timeout, a step limit, a model error: the attempt failed, the bench goes on
        print(f"  ({type(error).__name__}: {str(error)[:120]})", flush=True)
    try:
        marks = ",".join("?" * len(run_ids))
        (used,) = (
            session.stores.db.read(
                f"SELECT COALESCE(SUM(input_tokens + output_tokens), 0) FROM evals WHERE run_id IN ({marks})", run_ids
            )
            if run_ids
            else [(0,)]
        )
    finally:
        session.close()
    return {
        "said_done": success,
        "answered": answered,
        "samples": None,
        "tokens": int(used[0]),
        "votes": len(votes),
        "vote_samples": sum(vote.samples for vote in votes),
    }


def run_repair(
    bug: Bug, workspace: Path, model: str, time_limit: float, samples: int, templates: int, forms: str | None
) -> dict[str, Any]:
    """One ``Repairer`` run: ``samples`` model candidates in the first round, ``templates`` template ones per round."""
    from chrysalis.llm.sampling import Sampler
    from chrysalis.repair import RepairConfig, Repairer
    from chrysalis.repair.candidates import FORMS, parse_forms
    from chrysalis.tools.sandbox import SandboxOptions

    settings = _settings(model, workspace, time_limit)
    sampler = Sampler.for_model(model, settings, max_tokens=512)
    config = RepairConfig(
        TEST_COMMAND,
        samples=samples,
        max_samples=7 * samples,
        templates=templates,
        forms=parse_forms(forms) if forms else FORMS,
        time_limit=time_limit,
    )
    rounds: list[Any] = []
    repairer = Repairer(
        workspace, sampler, config, options=SandboxOptions.from_settings(settings), emit=_rounds_into(rounds)
    )
    report = asyncio.run(repairer.run())
    suspects = [f"{x.path}:{x.function}:{x.start}-{x.end}" for x in report.localisation.suspects[:3]]
    unusable_by: dict[str, int] = {}
    for round_ in rounds:
        for reason, count in round_.unusable_by.items():
            unusable_by[reason] = unusable_by.get(reason, 0) + count
    return {
        "unusable": sum(round_.unusable for round_ in rounds),
        "unusable_by": unusable_by,
        "said_done": report.success,
        "samples": report.samples,
        "templates": report.templates,
        "tokens": report.tokens,
        "winner": report.winner.form if report.winner else None,
        "passed_candidates": report.passed,
        "votes": report.votes,
        "problem": report.problem,
        "suspect_rank": _rank(report, bug),
        "localisation": report.localisation.method,
        "suspects": suspects,
    }


def _rounds_into(rounds: list[Any]) -> Callable[[Any], None]:
    """An ``emit`` that keeps repair's ``repair_round`` events (their discarded samples, by reason)."""
    from chrysalis.events import RepairRound

    return lambda event: rounds.append(event) if isinstance(event, RepairRound) else None


def _rank(report: Any, bug: Bug) -> int | None:
    """Where the buggy line's function came in the localisation (1 = first), or None when absent.

    Line numbers are the buggy program's: a deleted line's place is the line that followed it.
    """
    for i, suspect in enumerate(report.localisation.suspects, 1):
        if suspect.path == bug.program and suspect.start <= bug.line <= suspect.end:
            return i
    return None


def repair_settings(config: str) -> tuple[int, int, str | None]:
    """``(samples, templates, forms)`` of a repair configuration: ``repair-N``, ``model-N`` (no templates),
    ``templates``, each ``@FORMS`` for another turn of edit forms (``None``: the default)."""
    if config == "templates":
        return 0, TEMPLATES, None
    name, _, forms = config.partition("@")
    kind, _, n = name.partition("-")
    if kind not in ("repair", "model") or not n.isdigit():
        raise SystemExit(f"unknown configuration {config!r}: use loop, agent, templates, repair-N or model-N[@FORMS]")
    if forms:
        from chrysalis.repair.candidates import parse_forms

        try:
            parse_forms(forms, f"configuration {config!r}")
        except ValueError as error:
            raise SystemExit(str(error)) from None
    return int(n), TEMPLATES if kind == "repair" else 0, forms or None


def attempt(bug: Bug, config: str, model: str, time_limit: float, root: Path) -> dict[str, Any]:
    """One configuration's attempt at one bug, judged after the fact (against the reference, too)."""
    workspace = _workspace(bug, root / bug.folder.parent.name / config)
    started = time.perf_counter()
    agent = loop_settings(config)
    if agent is not None:
        with_repair, voting = agent
        outcome = run_loop(bug, workspace, model, time_limit, with_repair=with_repair, voting=voting)
    else:
        samples, templates, forms = repair_settings(config)
        outcome = run_repair(bug, workspace, model, time_limit, samples, templates, forms)
    seconds = time.perf_counter() - started
    patched = (workspace / bug.program).read_text(encoding="utf-8")
    tests_same = (workspace / bug.test_file).read_text(encoding="utf-8") == bug.tests
    tests_pass = tests_same and suite_passes(workspace)
    verdict = differential_check(bug.folder, patched) if tests_pass else None
    fixed = verdict is not None and verdict.agrees
    return {
        "set": set_of(bug),
        "bug": bug.name,
        "config": config,
        "category": bug.category,
        "kind": bug.kind,
        "tests_pass": tests_pass,
        "fixed": fixed,
        "overfit": tests_pass and not fixed,
        "disagreement": verdict.first if verdict is not None and not fixed else None,
        "clean": fixed and bug.is_clean(patched),
        "exact": fixed and bug.is_exact(patched),
        "tests_changed": not tests_same,
        "seconds": round(seconds, 1),
        "commit": _commit(),
        **outcome,
        "said_done_failing": outcome["said_done"] and not tests_pass,
        "diff": _git(workspace, "diff")[-2000:],
    }


def set_of(bug: Bug) -> str:
    """``dev`` or ``heldout``: the name ``--sets`` gives the bug's set."""
    return next(name for name, folder in SETS.items() if folder.resolve() == bug.folder.parent.resolve())


def summarise_sets(rows: list[dict[str, Any]], configs: list[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """``summarise`` for each set apart (rows written before there were two sets are ``dev``'s)."""
    names = dict.fromkeys(row.get("set", "dev") for row in rows)
    return {name: summarise([row for row in rows if row.get("set", "dev") == name], configs) for name in names}


def summarise(rows: list[dict[str, Any]], configs: list[str]) -> dict[str, dict[str, Any]]:
    """Per configuration, over the bugs that every configuration attempted (a fair comparison).

    A configuration with no rows here (e.g. ``agent``, run on the held-out set only) is left out, not a
    reason to compare nothing.
    """
    present = [config for config in configs if any(row["config"] == config for row in rows)]
    done = {config: {row["bug"] for row in rows if row["config"] == config} for config in present}
    common = set.intersection(*done.values()) if done else set()
    summary: dict[str, dict[str, Any]] = {}
    for config in configs:
        mine = [row for row in rows if row["config"] == config and row["bug"] in common]
        if not mine:
            continue
        n = len(mine)
        fixed = sum(row["fixed"] for row in mine)
        samples = [row["samples"] for row in mine if row["samples"] is not None]
        summary[config] = {
            "bugs": n,
            "fixed": fixed,
            "fixed_pct": round(100 * fixed / n, 1),
            "overfit": sum(row.get("overfit", False) for row in mine),
            "clean": sum(row["clean"] for row in mine),
            "exact": sum(row["exact"] for row in mine),
            "said_done_failing": sum(row["said_done_failing"] for row in mine),
            "mean_seconds": round(sum(row["seconds"] for row in mine) / n, 1),
            "max_seconds": max(row["seconds"] for row in mine),
            "mean_samples": round(sum(samples) / len(samples), 1) if samples else None,
            "unusable_pct": _unusable_pct(mine),
            "kept_line_pct": _unusable_pct(mine, "kept_line"),
            "mean_tokens": round(sum(row["tokens"] for row in mine) / n),
            "votes": sum(row.get("votes", 0) for row in mine),
            "commits": sorted({row["commit"] for row in mine}),
        }
    if "loop" in summary:
        base = max(summary["loop"]["fixed"], 1)
        for row in summary.values():
            row["times_loop"] = round(row["fixed"] / base, 1)
    return summary


def _unusable_pct(rows: list[dict[str, Any]], kind: str | None = None) -> float | None:
    """The share of the model's samples discarded before testing (issue 33: under 20 %); None with no samples.

    With ``kind``, the share discarded for that reason: ``kept_line`` (asked about one line, the model kept
    it, which the question allows) is part of the discards and is also reported apart.
    """
    mine = [row for row in rows if "unusable" in row]
    drawn = sum(row["samples"] or 0 for row in mine)
    if kind is None:
        discarded = sum(row["unusable"] for row in mine)
    else:
        discarded = sum((row.get("unusable_by") or {}).get(kind, 0) for row in mine)
    return round(100 * discarded / drawn, 1) if drawn else None


def print_table(summary: dict[str, dict[str, Any]]) -> None:
    print(
        f"{'config':<10} {'bugs':>4} {'fixed':>6} {'%':>6} {'overfit':>7} {'clean':>6} {'exact':>6} {'done!':>6} "
        f"{'s/bug':>6} {'max s':>6} {'samples':>8} {'unusable':>8} {'tokens':>7} {'×loop':>6}"
    )
    for config, row in summary.items():
        samples = "-" if row["mean_samples"] is None else f"{row['mean_samples']:.1f}"
        unusable = "-" if row.get("unusable_pct") is None else f"{row['unusable_pct']:.0f}%"
        print(
            f"{config:<10} {row['bugs']:>4} {row['fixed']:>6} {row['fixed_pct']:>6.1f} {row['overfit']:>7} "
            f"{row['clean']:>6} {row['exact']:>6} {row['said_done_failing']:>6} {row['mean_seconds']:>6.1f} "
            f"{row['max_seconds']:>6.1f} "
            f"{samples:>8} {unusable:>8} {row['mean_tokens']:>7} {row.get('times_loop', '-'):>6}"
        )
    print("done! = claimed success while the tests still failed")
    commits = {config: row["commits"] for config, row in summary.items()}
    if len({tuple(c) for c in commits.values()}) > 1 or any(len(c) > 1 for c in commits.values()):
        print("measured at different commits: " + "; ".join(f"{k} {', '.join(v)}" for k, v in commits.items()))
    else:
        print(f"all measured at {', '.join(next(iter(commits.values()), []))}")


def _no_pytest_plugins() -> None:
    """The bugs' tests load no pytest plugins.

    The bugs' projects need no plugin, but ``python`` here is chrysalis's own environment, whose
    plugins (hypothesis, schemathesis, xdist, anyio) would make every test run start in about 5 s
    instead of 0.6 s: a cost of this checkout, not of the bug's project.
    """
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument(
        "--configs",
        default=",".join(DEFAULT_CONFIGS),
        help="comma-separated (';' when a configuration names its forms: @a,b)",
    )
    parser.add_argument("--sets", default="dev,heldout", help="comma-separated: dev, heldout (both by default)")
    parser.add_argument("--bugs", default="", help="comma-separated bug names (default: all of the sets)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N bugs")
    parser.add_argument("--time-limit", type=float, default=160.0, help="seconds per attempt (under 3 minutes in all)")
    parser.add_argument("--resume", action="store_true", help="keep the rows of --out and do only the rest")
    parser.add_argument(
        "--drop-load",
        type=float,
        default=None,
        help="with --resume, drop and redo the rows measured while the 1-minute load was above this",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args()
    _commit()  # now, before anything can move HEAD during a run of hours
    configs = [c.strip() for c in options.configs.split(";" if "@" in options.configs else ",") if c.strip()]
    for config in configs:  # a bad name fails now, not hours into the run
        if loop_settings(config) is None:
            repair_settings(config)
    bugs = _bugs(options.sets, options.bugs, options.limit)
    rows: list[dict[str, Any]] = []
    if options.resume and options.out.is_file():
        previous = json.loads(options.out.read_text())
        rows = [row for row in previous["rows"] if previous["model"] == options.model]
        if options.drop_load is not None:
            rows = [row for row in rows if row.get("load_1m", 0.0) <= options.drop_load]
    done = {(row.get("set", "dev"), row["bug"], row["config"]) for row in rows}
    _no_pytest_plugins()
    known = list(dict.fromkeys([*(row["config"] for row in rows), *configs]))  # earlier runs' configs count too
    write: Callable[[], None] = lambda: _write(options, known, bugs, rows)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="chrysalis-repair-bench-") as tmp:
        for bug in bugs:
            for config in configs:
                if (set_of(bug), bug.name, config) in done:
                    continue
                with fresh_home():
                    row = attempt(bug, config, options.model, options.time_limit, Path(tmp))
                row["load_1m"] = round(os.getloadavg()[0], 2)  # how busy the 2 shared cores were: times depend on it
                rows.append(row)
                print(
                    f"{set_of(bug):<8} {bug.name:<22} {config:<10} {_verdict(row):<7} "
                    f"{'clean' if row['clean'] else '':<5} {row['seconds']:>6.1f} s",
                    flush=True,
                )
                write()
    write()
    for name, summary in summarise_sets(rows, known).items():
        print(f"\n{name} set")
        print_table(summary)
    return 0


def _bugs(sets: str, names: str, limit: int) -> list[Bug]:
    """The bugs of ``sets`` (comma-separated set names), only ``names`` if given, the first ``limit`` of each set."""
    chosen: list[Bug] = []
    for name in (part.strip() for part in sets.split(",") if part.strip()):
        if name not in SETS:
            raise SystemExit(f"--sets {sets!r}: unknown set {name!r}; give dev, heldout or both")
        folder = SETS[name]
        found = (
            [load(bug, folder) for bug in names.split(",") if (folder / bug).is_dir()] if names else load_all(folder)
        )
        chosen += found[:limit] if limit else found
    return chosen


def _verdict(row: dict[str, Any]) -> str:
    return "FIXED" if row["fixed"] else "overfit" if row["overfit"] else "failed"


@functools.cache
def _commit() -> str:
    """The code measured: HEAD when the bench started (it imports the code once), ``+dirty`` with changes then.

    Changes under ``bench/results`` (this bench's own output) do not count.
    """
    root = Path(__file__).parent
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    outside_results = ["--", ":/", ":(top,exclude)bench/results"]
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", *outside_results],
        cwd=root,
        capture_output=True,
        text=True,
    )
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _write(options: argparse.Namespace, configs: list[str], bugs: list[Bug], rows: list[dict[str, Any]]) -> None:
    options.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "model": options.model,
        "configs": configs,
        "bugs": len({(set_of(bug), bug.name) for bug in bugs} | {(row.get("set", "dev"), row["bug"]) for row in rows}),
        "time_limit_s": options.time_limit,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "commit": _commit(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "provenance": provenance(),
        "summary": summarise_sets(rows, configs),
        "rows": rows,
    }
    options.out.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
