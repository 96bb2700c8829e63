"""``chrysalis fix [--test "CMD"]``: repair the failing tests by generate-and-validate (``chrysalis.repair``).

The test command comes from ``--test``, the config's ``test_command``, or the project's files (as
the final check finds it). The patch is applied only where the settings allow writing (level 2 or
more, ``code`` mode); otherwise the diff is shown and nothing changes. Exit 0 when a patch passed the
whole suite (applied, or shown when writing is not allowed), 1 when none did, 2 for bad input.
"""

from __future__ import annotations

import asyncio
import uuid

from chrysalis.cli.render import JsonRenderer, RichRenderer, print_warnings
from chrysalis.config import SettingFlags, load_settings
from chrysalis.errors import EXIT_FAILED, EXIT_OK, UsageError
from chrysalis.events import Event
from chrysalis.evolve.priority import plan_for
from chrysalis.stores import Stores
from chrysalis.voting import VotingConfig

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
    from chrysalis.llm.pricing import check_budget, cost_usd
    from chrysalis.llm.sampling import Sampler
    from chrysalis.repair import RepairConfig, Repairer
    from chrysalis.repair.candidates import FORMS, parse_forms
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
    level = plan_for(settings.priority).voting
    voting = VotingConfig.level("low" if level == "none" else level)
    config = RepairConfig(
        command,
        samples=samples,
        max_samples=max(max_samples, samples),
        voting=voting,
        forms=turn,
        budget=settings.budget,
        time_limit=settings.timeout,
    )
    sampler = Sampler.for_model(settings.model, settings, max_tokens=MAX_TOKENS)
    render = JsonRenderer() if json_output else RichRenderer()
    writes = settings.level >= 2 and settings.mode == "code"
    run_id = uuid.uuid4().hex[:12]
    with Stores.open(settings.home) as stores:

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
            price=lambda tokens_in, tokens_out: cost_usd(settings.model, tokens_in, tokens_out, settings.prices),
        )
        report = asyncio.run(repairer.run(apply=writes))
    if report.success and not writes and not json_output:
        RichRenderer().console.print(
            f"not applied: level {settings.level}, mode {settings.mode} cannot write files "
            "(use --level 2 or more in code mode to apply it)"
        )
    return EXIT_OK if report.success else EXIT_FAILED
