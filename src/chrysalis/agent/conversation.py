"""One conversation with the agent: its messages, the stored session they are saved to, its summary and subscriptions.

``AgentSession`` runs tasks; this keeps what the tasks say to each other. The messages go to the
session store (``stores/sessions.py``) after every step and when a run ends however it ends, so
``--continue``, ``--resume`` and ``--fork`` pick up exactly what the model had seen. When the
conversation outgrows the model's window, ``compact`` folds the older turns into ``summary``
(``capabilities/compaction/summary.py``), kept as the session context's ``compacted_summary``, one version each time.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from chrysalis.capabilities.subscriptions.following import Subscriptions
from chrysalis.errors import UsageError
from chrysalis.stores import SessionInfo, Stores, UnknownSession
from chrysalis.stores.context import Context
from chrysalis.stores.sessions import new_id

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

    from chrysalis.capabilities.compaction.summary import Compaction

__all__ = ["StoredConversation"]


class StoredConversation:
    """The messages of one workspace's conversation, and the stored session that keeps them."""

    def __init__(self, stores: Stores, workspace: Path) -> None:
        self.stores = stores
        self.workspace = workspace
        self.history: list[ModelMessage] = []
        self.session_id: str | None = None
        """The stored session; None until the first run (``begin``) or a ``resume``."""
        self.summary = ""
        """What compaction kept of the turns it took out of ``history``."""
        self._stored = 0
        """How many of the messages the session store holds already (only those after are written)."""
        self._title: str | None = None
        """The first task of a session ``begin`` named but did not store yet (it is stored with its first message)."""
        self._reserved = False
        """``reserve`` chose the session's id; its first run's ``begin`` gives it its title."""
        self.subscriptions = Subscriptions(stores.subscriptions, workspace)
        """What every task of the conversation sees fresh (``capabilities/subscriptions/``); kept with its session."""

    def begin(self, task: str) -> str:
        """The session's id, named on the conversation's first run with ``task`` as its title.

        Its row is written with the first message, so a run that fails before its first step (a bad
        model name) leaves no empty session behind; subscriptions made before (``/subscribe`` before
        the first task, ``run --subscribe``) are stored with it.
        """
        if self.session_id is None:
            self.session_id, self._title, self._stored = new_id(), task, 0
        elif self._reserved:
            self._title, self._reserved = task, False
        return self.session_id

    def reserve(self) -> str:
        """The id the conversation's session will have, chosen now, before its first run.

        An editor (``chrysalis serve --acp``) is handed the id when the conversation opens and may load
        it later from another process; the row is still written only with the first message, titled
        with the first task, so a conversation that never runs leaves nothing behind.
        """
        if self.session_id is None:
            self.session_id, self._stored, self._reserved = new_id(), 0, True
        return self.session_id

    def save(self, messages: list[ModelMessage]) -> None:
        """Store ``messages`` as the conversation so far (after each step; a no-op before ``begin``).

        Only the messages the store writes (those after the stored ones) are turned into JSON: dumping
        the whole history at every step made each step cost more than the one before.
        """
        if self.session_id is None or not self._created(bool(messages)):
            return
        self._stored = self.stores.sessions.save_messages(self.session_id, _AsJson(messages), stored=self._stored)

    def end_run(self, messages: list[ModelMessage], *, steps: int, cost_usd: float) -> None:
        """A run ended (however): keep its messages as the history and in the store, and count the run."""
        self.history = runnable(messages)
        self.save(messages)
        if self.session_id is not None and self._title is None:
            self.stores.sessions.add_run(self.session_id, steps=steps, cost_usd=cost_usd)

    def resume(self, ref: str, *, flag: str = "--resume") -> SessionInfo:
        """Go on with the stored session ``ref`` (an id or its prefix).

        Raises:
            UsageError: no session matches ``ref``, or it belongs to another workspace; ``flag`` names
                the option in the message.
        """
        info = self._find(ref, flag)
        self._load(info)
        return info

    def fork(self, ref: str) -> SessionInfo:
        """Go on in a new session that starts with a copy of session ``ref``'s messages, summary and subscriptions.

        Raises:
            UsageError: no session matches ``ref``, or it belongs to another workspace.
        """
        original = self._find(ref, "--fork")
        info = self.stores.sessions.fork(original.id, self.workspace)
        summary = self.stores.context.load(_context_of(original.id)).compacted_summary
        if summary:
            self.stores.context.save(Context(compacted_summary=summary), _context_of(info.id))
        self.stores.subscriptions.copy(original.id, info.id)
        self._load(info)
        return info

    def continue_latest(self) -> SessionInfo:
        """Go on with this workspace's most recently used session.

        Raises:
            UsageError: the workspace has no session yet.
        """
        info = self.stores.sessions.latest(self.workspace)
        if info is None:
            raise UsageError(
                f"--continue: there is no earlier session in {self.workspace}; start one with "
                'chrysalis run "TASK" (chrysalis sessions lists every workspace\'s).'
            )
        self._load(info)
        return info

    async def compact(self, summarise: Callable[[str], Awaitable[str]]) -> Compaction | None:
        """Fold the older turns into ``summary`` with ``summarise``; None when there is nothing older to fold."""
        from chrysalis.capabilities.compaction.summary import compact

        done = await compact(self.history, summarise, previous_summary=self.summary)
        if done is None:
            return None
        self.history, self.summary = done.history, done.summary
        if self.session_id is not None:
            self.save(self.history)  # shorter: replaces the stored messages
            name = _context_of(self.session_id)
            context = self.stores.context.load(name)
            self.stores.context.save(dataclasses.replace(context, compacted_summary=done.summary), name)
        return done

    def _created(self, wanted: bool) -> bool:
        """Whether the session's row exists, writing it now if ``begin`` named it and ``wanted``."""
        if self._reserved:
            return False
        if self._title is None:
            return True
        if not wanted or self.session_id is None:
            return False
        self.stores.sessions.create(self.workspace, self._title, session_id=self.session_id)
        self._title = None
        self.subscriptions.attach(self.session_id)
        return True

    def tokens(self) -> int:
        """About how many tokens the history and the summary take."""
        from chrysalis.capabilities.compaction.summary import estimate_tokens

        return estimate_tokens(self.history, self.summary) if self.history else 0

    def _find(self, ref: str, flag: str) -> SessionInfo:
        try:
            info = self.stores.sessions.get(ref)
        except UnknownSession as exc:
            raise UsageError(f"{flag} {ref}: {exc}; chrysalis sessions lists them.") from exc
        if info.workspace != str(self.workspace):
            raise UsageError(
                f"{flag} {ref}: session {info.id} belongs to {info.workspace}, not {self.workspace}; "
                f"add --workspace {info.workspace} to work there."
            )
        return info

    def _load(self, info: SessionInfo) -> None:
        """Make ``info``'s stored messages, summary and subscriptions this conversation's.

        Subscriptions made before this conversation had a session are added to ``info``'s.
        """
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        stored = ModelMessagesTypeAdapter.validate_python(self.stores.sessions.messages(info.id))
        self.history = runnable(stored)
        self.session_id = info.id
        self._stored = 0  # the repaired history is saved whole at the next step
        self.summary = self.stores.context.load(_context_of(info.id)).compacted_summary
        self._title, self._reserved = None, False
        self.subscriptions.attach(info.id)


def runnable(messages: list[ModelMessage]) -> list[ModelMessage]:
    """``messages`` as a history a new task can follow: a tool call a stop left unanswered gets a placeholder result.

    pydantic-ai refuses a new prompt after unanswered tool calls; ``repair_messages`` closes them
    (marked as synthesized) and merges what a stop left split.
    """
    from pydantic_ai.messages import repair_messages

    return repair_messages(messages)


def _context_of(session_id: str) -> str:
    """The context-store name of a session's context (its compacted summary, versioned)."""
    return f"session:{session_id}"


class _AsJson(Sequence[dict[str, Any]]):
    """``messages`` as the JSON dicts the session store keeps, each dumped only when it is read."""

    def __init__(self, messages: Sequence[ModelMessage]) -> None:
        self._messages = messages

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        chosen = list(self._messages[index]) if isinstance(index, slice) else [self._messages[index]]
        dumped: list[dict[str, Any]] = ModelMessagesTypeAdapter.dump_python(chosen, mode="json")
        return dumped if isinstance(index, slice) else dumped[0]
