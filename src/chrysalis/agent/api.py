"""The agent as a library: ``chrysalis.Agent(...).run_sync("task")`` and ``chrysalis.configure(...)``.

The same session, policy, stores and traces as the CLI; settings come from the same merge
(keyword arguments act as flags), so a script and ``chrysalis run`` behave alike. Nothing is kept
between agents: settings shared by every agent of a process belong in ``CHRYSALIS_*`` or a config file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chrysalis.agent.session import AgentSession
from chrysalis.agent.toolset import Approver
from chrysalis.config import SettingFlags, configure, library_flags, load_settings
from chrysalis.events import RunResult

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from chrysalis.events import Event

__all__ = ["Agent", "configure"]


class Agent:
    """A coding agent in one workspace, usable from Python.

    ``model`` is a ``provider:name`` string or a ready pydantic-ai ``Model`` (e.g. ``FunctionModel``
    in tests); other keyword arguments are settings (``level``, ``mode``, ``workspace``, ``yes``,
    ``max_steps``, ``budget``, ``timeout``).
    """

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        approver: Approver | None = None,
        on_event: Callable[[Event], None] | None = None,
        **settings: Any,
    ) -> None:
        flags = SettingFlags.from_mapping(settings)
        if isinstance(model, str):
            flags = replace(flags, model=model)
        self.settings = load_settings(library_flags(flags))
        self.session = AgentSession(
            self.settings, model=None if isinstance(model, str) else model, approver=approver, on_event=on_event
        )

    async def run(self, task: str) -> RunResult:
        """Run one task; the conversation continues on the next call."""
        return await self.session.run(task)

    def run_sync(self, task: str) -> RunResult:
        """``run`` for code that is not async."""
        return asyncio.run(self.run(task))

    def close(self) -> None:
        """Close the stores."""
        self.session.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
