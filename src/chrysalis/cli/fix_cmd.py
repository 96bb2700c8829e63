"""``chrysalis fix [--test "CMD"]``: repair the failing tests by generate-and-validate (``chrysalis.repair``).

The test command comes from ``--test``, the config's ``test_command``, or the project's files (as
the final check finds it). The patch is applied only where the run's policy lets ``write_file``
write its file (``Policy.may_write``: level 2 or more, ``code`` mode, no deny rule, approved on the
terminal at level 2 unless ``--yes``, as ``chrysalis run`` asks); otherwise the diff is shown, the
reason printed, and nothing changes. Exit 0 when a patch passed the whole suite (applied, or shown
when the policy did not let it be written), 1 when none did, 2 for bad input.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

from chrysalis.cli.render import JsonRenderer, RichRenderer, print_warnings
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.errors import EXIT_FAILED, EXIT_OK, UsageError
from chrysalis.events import Event
from chrysalis.evolve.priority import plan_of
from chrysalis.stores import Stores
from chrysalis.voting import VotingConfig

if TYPE_CHECKING:
    from chrysalis.repair import RepairConfig
    from chrysalis.repair.candidates import Form
    from chrysalis.tools.policy import Decision

__all__ = ["fix_command"]

MAX_TOKENS = 512
"""A candidate's reply cap: a whole small function fits."""


def fix_command(
    flags: SettingFlags,
    *,
    test: str | None,
    samples: int,
    max_samples: int,
    json_output: bool,
    forms: str | None = None,
) -> int:
    """Localise, sample, validate, vote, apply; print events as they happen.

    Raises:
        UsageError: no test command can be found, a sample count is below 1, or ``--forms`` names an unknown form.
    """
    from chrysalis.agent.choice import routed_model
    from chrysalis.agent.gate.patches import patch_authoriser
    from chrysalis.cli.approval import terminal_approver
    from chrysalis.llm.pricing import check_budget, cost_usd
    from chrysalis.llm.sampling import Sampler
    from chrysalis.repair import Repairer
    from chrysalis.repair.candidates import FORMS, parse_forms
    from chrysalis.tools.policy import Policy
    from chrysalis.tools.run_tests import detect_test_command
    from chrysalis.tools.sandbox import SandboxOptions

    for flag, value in (("--samples", samples), ("--max-samples", max_samples)):
        if value < 1:
            raise UsageError(f"{flag} {value}: give a whole number of 1 or more.")
    try:
        turn = FORMS if forms is None else parse_forms(forms, f"--forms {forms!r}")
    except ValueError as error:
        raise UsageError(str(error)) from None
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    command = test or settings.test_command or detect_test_command(settings.workspace)
    if not command or not command.strip():
        raise UsageError(
            f"No test command for {settings.workspace}: give --test \"CMD\" (e.g. --test 'python -m pytest -q'), "
            "or set test_command in .chrysalis/config.toml."
        )
    check_budget(settings.model, settings.budget, settings.prices, settings.sources.get("budget", "budget"))
    config = _repair_config(settings, command, samples, max(max_samples, samples), turn)
    render = JsonRenderer() if json_output else RichRenderer()
    approver = None if json_output else terminal_approver(lambda: settings.workspace)
    run_id = uuid.uuid4().hex[:12]
    with Stores.open(settings.home) as stores:
        model = routed_model(settings, stores.evals, "fix")  # under `auto`, the router's pick for repairs
        sampler = Sampler.for_model(model, settings, max_tokens=MAX_TOKENS)

        def emit(event: Event) -> None:
            stores.traces.record(run_id, event.to_json())
            render(event)

        repairer = Repairer(
            settings.workspace,
            sampler,
            config,
            options=SandboxOptions.from_settings(settings),
            checkpoints=stores.checkpoints,
            run_id=run_id,
            emit=emit,
            price=lambda tokens_in, tokens_out: cost_usd(model, tokens_in, tokens_out, settings.prices),
            authorise=patch_authoriser(Policy.from_settings(settings), approver, run_id=run_id, emit=emit),
        )
        report = asyncio.run(repairer.run())
    if report.success and report.refusal is not None and not json_output:
        said = _not_applied(settings, report.refusal, asked=approver is not None)
        RichRenderer().console.print(said, soft_wrap=True, highlight=False)
    return EXIT_OK if report.success else EXIT_FAILED


def _repair_config(
    settings: Settings, command: str, samples: int, max_samples: int, forms: tuple[Form, ...]
) -> RepairConfig:
    """How hard to try: the flags' samples, the priority's voting level, the budget and the time limit."""
    from chrysalis.repair import RepairConfig

    level = plan_of(settings).voting
    voting = VotingConfig.level("low" if level == "none" else level)
    return RepairConfig(
        command,
        samples=samples,
        max_samples=max_samples,
        voting=voting,
        forms=forms,
        budget=settings.budget,
        time_limit=settings.timeout,
    )


def _not_applied(settings: Settings, refusal: Decision, *, asked: bool) -> str:
    """Why the patch that passed was not written, and what would let it be (``asked``: someone could approve)."""
    if refusal.by in ("level", "mode"):
        return (
            f"not applied: level {settings.level}, mode {settings.mode} cannot write files "
            "(use --level 2 or more in code mode to apply it)"
        )
    if refusal.by == "rule" and refusal.rule is not None and refusal.kind == "deny":
        return f"not applied: {refusal.reason} Remove that rule from {refusal.rule.source} to apply it."
    if refusal.by == "confirmation" and not asked:
        return (
            "not applied: at level 2 a patch needs your approval, and no one can approve it here (no terminal, or "
            "--json). Run it on a terminal, or rerun with --yes (yes = true in your config) to apply it unasked."
        )
    return f"not applied: {refusal.reason}"
