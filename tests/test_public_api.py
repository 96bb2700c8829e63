"""The public Python surface: names that DESIGN.md promises, and the library Agent."""

from __future__ import annotations

from pathlib import Path

import chrysalis
from chrysalis.llm.testing import ScriptedModel, final, tool


def test_exports_resolve() -> None:
    for name in chrysalis.__all__:
        assert getattr(chrysalis, name) is not None


def test_library_agent_runs_a_task(workspace: Path) -> None:
    script = ScriptedModel([tool("read_file", path="calc.py"), final("It adds.")])
    with chrysalis.Agent(script.model(), workspace=workspace, level=0) as agent:
        result = agent.run_sync("what does subtract do?")
    assert result.success and result.output == "It adds." and result.steps == 2


def test_configure_sets_defaults_that_arguments_override(workspace: Path) -> None:
    chrysalis.configure(model="openai:gpt-4o-mini", max_steps=7)
    try:
        agent = chrysalis.Agent(workspace=workspace)
        assert agent.settings.model == "openai:gpt-4o-mini" and agent.settings.max_steps == 7
        agent.close()
        other = chrysalis.Agent("local:qwen2.5-coder-0.5b", workspace=workspace, max_steps=3)
        assert other.settings.model == "local:qwen2.5-coder-0.5b" and other.settings.max_steps == 3
        other.close()
    finally:
        from chrysalis import config

        config._process_defaults.clear()
