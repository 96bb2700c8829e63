"""The ``repair`` tool: the agent hands failing tests to generate-and-validate repair (``chrysalis.repair``).

A small model editing by hand often cannot even address the buggy line (``return a + b`` appears
in two functions) and gives up or shadows it; repair localises the fault, samples many candidates
on the same model's fast path, keeps the ones the tests pass and applies the voted winner with the
run's checkpoint (so ``chrysalis undo`` covers it). Offered only to runs whose model has a fast
sampling path (the embedded model, or a model on an OpenAI-compatible server), at level 2 or more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import Field

from chrysalis.config import Settings
from chrysalis.events import Event
from chrysalis.evolve.priority import plan_of
from chrysalis.llm.names import ModelName
from chrysalis.repair.apply import Authorise, allow_all
from chrysalis.stores.checkpoints import CheckpointStore
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.run_tests import detect_test_command
from chrysalis.tools.sandbox import SandboxOptions

if TYPE_CHECKING:
    from chrysalis.repair import RepairConfig, RepairReport

__all__ = ["RepairArgs", "has_sampling_path", "pointing_to_repair", "repair_tool"]

SAMPLES = 6
MAX_SAMPLES = 24
MAX_TOKENS = 512


class RepairArgs(ToolArgs):
    """Arguments of ``repair``."""

    hint: str | None = Field(default=None, description="Optional: the file or function where the bug probably is.")


NEXT_STEP = "\nNext: call repair to fix the failing tests."


def pointing_to_repair(run_tests: ToolSpec) -> ToolSpec:
    """``run_tests`` whose failing report ends by naming the next step: small models follow the last line they read."""

    def run(args: Any, ctx: ToolContext) -> ToolResult:
        result = run_tests.run(args, ctx)
        failed = result.ok and result.result is not None and "\nexit code 0" not in result.result
        return ToolResult.success(result.result + NEXT_STEP) if failed and result.result else result

    return replace(run_tests, run=run)


def has_sampling_path(model: str, settings: Settings) -> bool:
    """Whether ``model`` can be sampled directly (what repair needs): embedded, or on an OpenAI-compatible server."""
    try:
        name = ModelName.parse(model, base_url=settings.base_url)
    except Exception:  # a bad name fails elsewhere, with its own message
        return False
    return name.provider == "local" or (name.provider in ("openai-compatible", "ollama") and bool(settings.base_url))


def repair_tool(
    settings: Settings,
    model: str,
    run_id: str,
    checkpoints: CheckpointStore,
    emit: Callable[[Event], None],
    *,
    authorise: Authorise = allow_all,
) -> ToolSpec:
    """The ``repair`` tool of one run: samples ``model``, checkpoints under ``run_id``, emits repair events.

    The winner is written only if ``authorise`` allows it: the run's policy judges it as ``write_file``
    (approved at its diff where that asks), so the call asks nothing itself (``writes_through_policy``).
    """

    async def run(args: RepairArgs, ctx: ToolContext) -> ToolResult:
        from chrysalis.llm.sampling import Sampler
        from chrysalis.repair import Repairer

        command = settings.test_command or detect_test_command(ctx.workspace)
        if not command:
            raise ToolError("No test command is known for this project: set test_command in .chrysalis/config.toml.")
        config = _config(settings, command, args.hint)
        sampler = await asyncio.to_thread(Sampler.for_model, model, settings, max_tokens=MAX_TOKENS)
        repairer = Repairer(
            ctx.workspace,
            sampler,
            config,
            options=SandboxOptions.from_settings(settings),
            checkpoints=checkpoints,
            run_id=run_id,
            emit=emit,
            authorise=authorise,
        )
        return _result(await repairer.run(apply=True))

    return ToolSpec(
        "repair",
        "Fix failing tests automatically: finds the buggy line, tries many fixes, applies one the tests pass.",
        RepairArgs,
        "write",
        2,
        _sync_only,
        arun=run,
        writes_through_policy=True,  # its patch is judged and approved (with its diff) by ``authorise``
        fixes_failing_tests=True,  # the loop calls it itself when the final check fails or the model stalls
    )


def _result(report: RepairReport) -> ToolResult:
    """What the model (or the framework, ``agent/rescue.py``) reads of a repair: the applied diff, or why not."""
    if report.success and report.winner is not None and report.refusal is not None:
        return ToolResult.failure(
            f"Repair found a fix the tests pass, but it was not applied: {report.refusal.reason}\n{report.winner.diff}"
        )
    if report.success and report.winner is not None:
        return ToolResult.success(
            f"Repaired {report.winner.suspect.path}: the tests pass with this change (applied; "
            f"{report.samples} samples and {report.templates} templates tried, {report.passed} passed):\n"
            f"{report.winner.diff}"
        )
    return ToolResult.failure(f"Repair found no fix: {report.problem}. Read the failing code and edit it yourself.")


def _config(settings: Settings, command: str, hint: str | None) -> RepairConfig:
    """The repair of one call: ``command``'s tests, the tool's sample counts, the priority's voting level."""
    from chrysalis.repair import RepairConfig
    from chrysalis.voting import VotingConfig

    level = plan_of(settings).voting
    voting = VotingConfig.level("low" if level == "none" else level)
    return RepairConfig(command, samples=SAMPLES, max_samples=MAX_SAMPLES, hint=hint, voting=voting)


def _sync_only(_args: RepairArgs, _ctx: ToolContext) -> ToolResult:
    return ToolResult.failure("repair runs only inside an agent run.")
