"""One ACP session: an ``AgentSession`` in the client's folder, its updates on their way, its approvals and its stop.

The agent's events arrive synchronously (``on_event``); their updates go into a queue that one task
sends in order, so a permission request or the prompt's answer can wait until everything before it
was sent (the client must see the tool call before it is asked about it, and every update before
the ``stopReason``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING, Any, cast

from acp.helpers import update_agent_message_text, update_agent_thought_text
from acp.interfaces import Client
from acp.schema import AllowedOutcome, PermissionOption, SessionModeState, StopReason

from chrysalis.agent.session import AgentSession
from chrysalis.config import Mode, Settings
from chrysalis.errors import PolicyDenied, TaskStopped
from chrysalis.events import Event
from chrysalis.server.acp.history import history_updates
from chrysalis.server.acp.modes import check_mode, mode_state
from chrysalis.server.acp.updates import EventMapper, Update
from chrysalis.tools.policy import Policy

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["PERMISSION_OPTIONS", "AcpSession", "BusyError"]

_log = logging.getLogger(__name__)

PERMISSION_OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow this tool", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always reject this tool", kind="reject_always"),
)
"""What the user may answer; an ``always`` answer holds for that tool for the rest of the session."""


class BusyError(Exception):
    """A prompt came while the session's previous one is still running."""


class AcpSession:
    """The state of one ACP session between its requests."""

    def __init__(
        self,
        client: Client,
        settings: Settings,
        mcp_servers: dict[str, dict[str, Any]] | None = None,
        model: Model | None = None,
    ) -> None:
        """A session in ``settings.workspace`` with the editor's MCP servers (``mcp.json``'s per-server format).

        ``model`` is a ready pydantic-ai model (tests); by default the settings' model is built.

        Made in the event loop that serves the connection.

        Its id is the stored conversation's: ``open_new`` or ``load`` sets it.
        """
        self.client = client
        self._loop = asyncio.get_running_loop()
        """The loop the session was opened in: updates are queued and sent there, whichever thread emits."""
        self.mapper = EventMapper(settings.workspace, Policy.from_settings(settings))
        self.agent = AgentSession(
            settings, model=model, approver=self.approve, on_event=self.on_event, mcp_servers=mcp_servers
        )
        self.session_id = ""
        self.ceiling = Policy.from_settings(settings)
        """The configured policy: the editor may narrow the session's mode (``set_mode``), never widen it."""
        self.always: dict[str, bool] = {}
        """Tools the user answered ``allow_always`` (True) or ``reject_always`` (False) for."""
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self._run: asyncio.Task[Any] | None = None
        self._cancelled = False
        self._warnings = list(settings.warnings)
        """What to know about the settings (an untrusted folder's ignored keys): said at the first prompt."""
        for warning in self._warnings:
            _log.warning("%s", warning)

    def open_new(self) -> str:
        """Name the new conversation now (``session/new`` answers with the id), stored with its first message."""
        self.session_id = self.agent.conversation.reserve()
        return self.session_id

    async def load(self, session_id: str) -> None:
        """Go on with stored session ``session_id`` and send its conversation so the client shows it again.

        Raises:
            UsageError: no such session, or it belongs to another folder.
        """
        self.session_id = self.agent.conversation.resume(session_id, flag="session/load").id
        for update in history_updates(self.agent.history, self.agent.settings.workspace):
            self.send(update)
        await self.flush()

    @property
    def modes(self) -> SessionModeState:
        """The session's mode and those the editor may switch to."""
        return mode_state(self.agent.settings.mode, self.ceiling)

    def set_mode(self, mode: str) -> None:
        """Work in ``mode`` from the next prompt on (``session/set_mode``).

        Raises:
            UsageError: ``mode`` would allow more than the configured mode.
        """
        policy = check_mode(mode, self.ceiling)
        self.agent.settings = dataclasses.replace(self.agent.settings, mode=cast(Mode, policy.mode))
        self.mapper.policy = policy

    def on_event(self, event: Event) -> None:
        """Queue the updates of one of the run's events (called synchronously by the run, in any thread)."""
        if not self._in_loop():
            self._loop.call_soon_threadsafe(self.on_event, event)
            return
        for update in self.mapper.updates(event):
            self.send(update)

    def send(self, update: Update) -> None:
        """Queue ``update``; it goes out after everything queued before it."""
        if not self._in_loop():
            self._loop.call_soon_threadsafe(self.send, update)
            return
        if self._pump is None:
            self._pump = self._loop.create_task(self._send_all())
        self._queue.put_nowait(update)

    def _in_loop(self) -> bool:
        """Whether this is the event loop's thread (the queue and the mapper are not thread-safe)."""
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    async def flush(self) -> None:
        """Wait until every queued update was sent."""
        if self._pump is not None:
            await self._queue.join()

    async def approve(self, tool: str, args: dict[str, Any], reason: str) -> bool:
        """The gate's approver: ask the client with ``session/request_permission``, or answer as told ``always``."""
        if tool in self.always:
            return self.always[tool]
        await self.flush()
        call = self.mapper.permission_call(tool, args, reason)
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=call, options=list(PERMISSION_OPTIONS)
            )
        except Exception as exc:  # the client failed or went away: nobody approved the call, so it does not run
            _log.warning("session/request_permission failed (%s); the call is not run", exc)
            return False
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):  # cancelled: the prompt is being stopped
            return False
        choice = outcome.option_id
        if choice in ("allow_always", "reject_always"):
            self.always[tool] = choice == "allow_always"
        return choice in ("allow_once", "allow_always")

    async def prompt(self, task: str) -> StopReason:
        """Run ``task`` to its end and say why it ended; a ``ChrysalisError`` the caller cannot act on is raised.

        Raises:
            BusyError: the previous prompt is still running.
            ChrysalisError: the run could not start or failed (a bad model, a provider error, ...).
        """
        if self._run is not None:
            raise BusyError("a prompt is already running in this session: cancel it (session/cancel) or wait")
        self._cancelled = False
        for warning in self._warnings:
            self.send(update_agent_thought_text(f"warning: {warning}"))
        self._warnings.clear()
        self._run = asyncio.get_running_loop().create_task(self.agent.run(task))
        try:
            stop = await self._outcome(self._run)
        finally:
            self._run = None
            for update in self.mapper.abandon():
                self.send(update)
            await self.flush()
        return stop

    async def _outcome(self, run: asyncio.Task[Any]) -> StopReason:
        try:
            await run
        except asyncio.CancelledError:
            if not self._cancelled:
                raise  # the request itself is being cancelled (the connection closes)
            return "cancelled"
        except TaskStopped as exc:
            self.send(update_agent_message_text(f"\n\nStopped: {exc}"))
            return "max_tokens" if exc.reason == "budget" else "max_turn_requests"
        except PolicyDenied as exc:
            self.send(update_agent_message_text(f"\n\nRefused: {exc}"))
            return "refusal"
        return "end_turn"

    def cancel(self) -> None:
        """Stop the running prompt (``session/cancel``); its request answers ``cancelled``. A no-op when idle."""
        if self._run is not None and not self._run.done():
            self._cancelled = True
            self._run.cancel()

    def close(self) -> None:
        """Stop the prompt and the sender, and close the session's stores.

        Updates not sent yet are dropped (and counted done, so that nothing waits for them forever).
        """
        self.cancel()
        if self._pump is not None:
            self._pump.cancel()
            while not self._queue.empty():
                self._queue.get_nowait()
                self._queue.task_done()
        self.agent.close()

    async def _send_all(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.client.session_update(session_id=self.session_id, update=update)
            except Exception as exc:  # one lost update must not stop the run; the client may have gone
                _log.warning("session/update failed: %s", exc)
            finally:
                self._queue.task_done()
