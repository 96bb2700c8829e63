"""The public Python surface: names that DESIGN.md promises, and the library Agent."""

from __future__ import annotations

from pathlib import Path

import chrysalis
from tests.helpers import Script, final, tool


def test_exports_resolve() -> None:
    for name in chrysalis.__all__:
        assert getattr(chrysalis, name) is not None


def test_library_agent_runs_a_task(workspace: Path) -> None:
    script = Script([tool("read_file", path="calc.py"), final("It adds.")])
    with chrysalis.Agent(script.model(), workspace=workspace, level=0) as agent:
        result = agent.run_sync("what does subtract do?")
    assert result.success and result.output == "It adds." and result.steps == 2


def test_keyword_arguments_are_settings_and_none_carries_over_to_the_next_agent(workspace: Path) -> None:
    with chrysalis.Agent("openai:gpt-4o-mini", workspace=workspace, max_steps=7) as agent:
        assert agent.settings.model == "openai:gpt-4o-mini" and agent.settings.max_steps == 7
        assert agent.settings.sources["max_steps"] == "flag --max-steps"
    with chrysalis.Agent(workspace=workspace) as other:
        assert other.settings.max_steps == 30 and other.settings.sources["max_steps"] == "default"
