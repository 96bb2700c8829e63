"""Which conversation a run goes on with, and what it subscribes to (``--subscribe TARGET``).

``--continue``, ``--resume ID``, ``--fork ID``, or none of them for a new one.

Kept apart from ``run_cmd`` so that ``chrysalis run`` can check the flags before it imports the
agent (the warm daemon takes the run otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from chrysalis.agent.session import AgentSession
    from chrysalis.stores import SessionInfo

__all__ = ["ConversationFlags"]


@dataclass(frozen=True)
class ConversationFlags:
    """The session flags of one ``chrysalis run``; none given means a new session."""

    continue_latest: bool = False
    resume: str | None = None
    fork: str | None = None
    subscribe: tuple[str, ...] = ()
    """``--subscribe`` targets (files, globs, ``memory:`` queries), added to the conversation's subscriptions."""

    @property
    def given(self) -> bool:
        """Whether the run goes on with an earlier conversation."""
        return self.continue_latest or self.resume is not None or self.fork is not None

    def check(self) -> None:
        """Refuse more than one of the three flags.

        Raises:
            UsageError: two or three were given.
        """
        given = [
            flag
            for flag, on in (
                ("--continue", self.continue_latest),
                ("--resume", self.resume is not None),
                ("--fork", self.fork is not None),
            )
            if on
        ]
        if len(given) > 1:
            raise UsageError(f"{' and '.join(given)} each pick a conversation: give one of them.")

    def refuse_durable(self) -> int:
        """``--durable`` runs start a new conversation on a worker; a session's messages and subscriptions stay here.

        Raises:
            UsageError: always.
        """
        if self.subscribe and not self.given:
            raise UsageError(
                "--durable starts a new conversation on a worker, without subscriptions: drop "
                "--subscribe, or drop --durable."
            )
        raise UsageError("--durable starts a new conversation: drop --continue, --resume or --fork, or drop --durable.")

    def open(self, session: AgentSession) -> SessionInfo | None:
        """Load the chosen conversation into ``session`` (None: a new one begins with the first run).

        Raises:
            UsageError: the flags clash, or the session named does not exist here.
        """
        self.check()
        if self.continue_latest:
            return session.conversation.continue_latest()
        if self.resume is not None:
            return session.conversation.resume(self.resume)
        if self.fork is not None:
            return session.conversation.fork(self.fork)
        return None

    def add_subscriptions(self, session: AgentSession) -> tuple[str, ...]:
        """Subscribe ``session``'s conversation to the ``--subscribe`` targets; returns warnings to show.

        All are checked before any is added, so a bad one leaves the conversation as it was.

        Raises:
            UsageError: a target cannot be subscribed (outside the workspace, missing, a folder, ...).
        """
        from chrysalis.capabilities.subscriptions.following import BadSubscription, parse_target

        subscriptions = session.conversation.subscriptions
        try:
            for target in self.subscribe:
                parse_target(target, subscriptions.workspace)
        except BadSubscription as exc:
            raise UsageError(f"--subscribe {target}: {exc}") from None
        added = [subscriptions.add(target) for target in self.subscribe]
        return tuple(f"--subscribe {item.subscription.label}: {item.warning}" for item in added if item.warning)
