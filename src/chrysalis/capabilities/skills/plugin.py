"""The skills plug-in: the skills' names in the head of the prompt, and the ``skill`` tool to read one."""

from __future__ import annotations

from chrysalis.capabilities.scope import NoHooks, RunScope
from chrysalis.capabilities.skills.discovery import discover_skills
from chrysalis.plugin import Offer
from chrysalis.tools.base import ToolSpec

__all__ = ["SkillsPlugin"]


class SkillsPlugin(NoHooks):
    """The workspace's and the user's skills, found again for every run (a broken one is left out, never raised)."""

    name = "skills"

    def offer(self, run: RunScope) -> Offer[ToolSpec]:
        """The ``skill`` tool (when there is a skill) and the skills' one-line summaries."""
        skills = discover_skills(run.settings.workspace, run.settings.home)
        return Offer(skills.tools(), skills.prompt_section(), "head")
