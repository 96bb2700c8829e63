"""The public Python surface: names that DESIGN.md promises, and the library Agent."""

from __future__ import annotations

import contextvars
from pathlib import Path

import pytest

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


def test_keyword_arguments_are_settings_and_none_carries_over_to_the_next_agent(workspace: Path) -> None:
    with chrysalis.Agent("openai:gpt-4o-mini", workspace=workspace, max_steps=7) as agent:
        assert agent.settings.model == "openai:gpt-4o-mini" and agent.settings.max_steps == 7
        assert agent.settings.sources["max_steps"] == "flag --max-steps"
    with chrysalis.Agent(workspace=workspace) as other:
        assert other.settings.max_steps == 30 and other.settings.sources["max_steps"] == "default"


def test_configure_sets_defaults_that_arguments_override_in_its_own_context(workspace: Path) -> None:
    def configured() -> None:
        chrysalis.configure(model="openai:gpt-4o-mini", max_steps=7)
        with chrysalis.Agent(workspace=workspace) as agent:
            assert agent.settings.model == "openai:gpt-4o-mini" and agent.settings.max_steps == 7
        with chrysalis.Agent("local:qwen2.5-coder-0.5b", workspace=workspace, max_steps=3) as other:
            assert other.settings.model == "local:qwen2.5-coder-0.5b" and other.settings.max_steps == 3

    contextvars.copy_context().run(configured)
    with chrysalis.Agent(workspace=workspace) as outside:  # the test's own context never saw configure
        assert outside.settings.max_steps == 30


def test_configure_names_a_setting_that_does_not_exist() -> None:
    with pytest.raises(chrysalis.ChrysalisError, match="unknown setting 'max_stepz'"):
        chrysalis.configure(max_stepz=3)
