"""The seam a durable runtime plugs into: what of a run must be recorded so a crash can resume it.

A run is replayed from its start after a crash; it reaches the same place only if everything that
steered it comes back the same: the model's replies, the tools' results, and the final check's
verdict (the workspace has moved on since the check first ran). A ``Durability`` records each of
those the first time and hands the record back on replay. The agent layer only knows this
protocol; ``chrysalis.runtime.durable`` implements it on DBOS.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from chrysalis.events import Check
from chrysalis.tools.base import ToolResult, ToolSpec

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["INTERRUPTED", "Durability", "Verdict", "interrupted"]

INTERRUPTED = (
    "Not run again: {tool} was running when the worker executing this run crashed, so it may have run partly or "
    "completely. Look at its effects (read the files, git_status) before deciding whether to run it again."
)
"""What the model is told about a command a crash interrupted (it is not rerun blindly)."""

T = TypeVar("T")


@dataclass(frozen=True)
class Verdict:
    """What the final check found: ``verified`` as in ``RunResult``, and the problem when it is False.

    It lives here, beside the seam that records it, so that this protocol need not import the check.
    """

    verified: bool | None
    problem: str | None = None
    report: str = ""
    ran: bool = True
    """False when the command could not start (no sandbox here): nothing the model can fix."""


class Durability(Protocol):
    """Records a run's model replies, tool effects and checks, and replays them after a crash."""

    def wrap_model(self, model: Model) -> Model:
        """``model`` with each request recorded (a replayed request is not sent again)."""
        ...

    async def tool(self, spec: ToolSpec, args: Any, run: Callable[[], Awaitable[ToolResult]]) -> ToolResult:
        """The result of one tool call that passed every gate: ``run()`` once, never twice in effect."""
        ...

    async def check(self, run: Callable[[str], tuple[Verdict, Check]], command: str) -> tuple[Verdict, Check]:
        """The final check's verdict on the workspace as it was when the run first reached it."""
        ...

    async def once(self, name: str, decide: Callable[[], T]) -> T:
        """``decide()`` the first time; its recorded value on replay (choices read from stores that move on)."""
        ...


def interrupted(tool: str) -> ToolResult:
    """The result of a call of ``tool`` that a crash interrupted: it had no result, so it may be made again."""
    return ToolResult.failure(INTERRUPTED.format(tool=tool))
