"""Subscriptions (seed 002): files, globs and memory queries a conversation sees fresh at every task.

A target is one of:

- a workspace file, ``src/app.py`` (it must exist and be a regular file inside the workspace when
  subscribed; if it disappears later, each task is told so);
- a glob, ``src/**/*.py``, matched against paths from the workspace root (``*`` within a folder,
  ``**`` across folders); a glob that matches nothing yet is kept, with a warning: files that
  appear later will show;
- a memory query, ``memory:deploy steps``: the best matching memories of this workspace and the
  global scope, searched again at every task.

``Subscriptions`` is one conversation's set. A conversation is a stored session
(``agent/conversation.py``); until the session's row exists (the REPL before any task,
``chrysalis run --subscribe`` of a new session, a first task until its first step is saved)
subscriptions wait in memory, numbered as they will be stored, and go into the session the
conversation becomes: the one its first task creates, or the one ``/resume`` or ``/fork`` picks
(added after that session's own). The model
manages them with ``subscribe(target)`` and ``unsubscribe(id)`` (effect ``memory``: no file is
written, no approval needed); people with ``/subscribe``, ``/unsubscribe`` and ``chrysalis run
--subscribe``. What each task is shown is ``capabilities/subscriptions/reading.py``'s work.
"""

from __future__ import annotations

import posixpath
import time
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import Field

from chrysalis.capabilities.subscriptions.reading import Reading, glob_files, read, section
from chrysalis.errors import UsageError
from chrysalis.stores.memory import MemoryStore
from chrysalis.stores.subscriptions import MEMORY_PREFIX, Subscription, SubscriptionKind, SubscriptionStore
from chrysalis.tools.base import ToolArgs, ToolContext, ToolError, ToolResult, ToolSpec
from chrysalis.tools.workspace import resolve

__all__ = [
    "Added",
    "BadSubscription",
    "SubscribeArgs",
    "Subscriptions",
    "UnsubscribeArgs",
    "parse_target",
    "subscription_tools",
]

MAX_QUERY_CHARS = 500
_WILDCARDS = "*?["
_EXAMPLES = "a file ('src/app.py'), a glob ('src/**/*.py') or a memory query ('memory:deploy steps')"


class BadSubscription(UsageError):
    """A target that cannot be subscribed, or an id that names no subscription; the message says why."""


@dataclass(frozen=True)
class Added:
    """What ``Subscriptions.add`` did."""

    subscription: Subscription
    new: bool
    """False when the conversation was subscribed to it already (the existing one is returned)."""
    warning: str = ""
    """What the person should know: a glob that matches no file now."""


def parse_target(text: str, workspace: Path) -> tuple[SubscriptionKind, str]:
    """The kind of ``text`` and the target as stored: a workspace-relative path or glob, or a query.

    Raises:
        BadSubscription: it is empty, leaves the workspace, is a folder, a special file, or a file
            that does not exist; the message names it and what to give instead.
    """
    raw = text.strip()
    if len(raw) > 1 and raw[0] == raw[-1] and raw[0] in "'\"":  # '/subscribe "src/**/*.py"' as a shell would read it
        raw = raw[1:-1].strip()
    if not raw:
        raise BadSubscription(f"say what to subscribe to: {_EXAMPLES}.")
    if raw.startswith(MEMORY_PREFIX):
        query = " ".join(raw[len(MEMORY_PREFIX) :].split())
        if not query:
            raise BadSubscription("'memory:' needs a query after it, e.g. 'memory:deploy steps'.")
        if len(query) > MAX_QUERY_CHARS:
            raise BadSubscription(f"the memory query is {len(query)} characters; keep it to {MAX_QUERY_CHARS}.")
        return "memory", query
    kind: SubscriptionKind = "glob" if any(ch in raw for ch in _WILDCARDS) else "file"
    try:
        path = resolve(workspace, raw)  # every path rule of the file tools: no '..' out, no link out, no '~'
    except ToolError as exc:
        raise BadSubscription(str(exc)) from None
    rel = _relative(workspace, raw)
    if kind == "glob":
        return kind, rel
    if not path.exists():
        raise BadSubscription(
            f"{raw!r} does not exist in the workspace; to follow a file that does not exist yet, "
            f"subscribe to a glob such as {rel + '*'!r}."
        )
    if path.is_dir():
        glob = "**/*.py" if rel == "." else rel + "/**/*.py"
        raise BadSubscription(f"{raw!r} is a folder; subscribe to a glob of its files, such as {glob!r}.")
    if not path.is_file():
        raise BadSubscription(f"{raw!r} is not a regular file (a pipe, socket or device); it cannot be read.")
    return kind, rel


def _relative(workspace: Path, raw: str) -> str:
    """``raw`` as a normalised workspace-relative POSIX path (``resolve`` has checked it stays inside)."""
    given = Path(raw)
    for base in (workspace.absolute(), workspace.resolve()):
        if given.is_absolute() and given.is_relative_to(base):
            given = given.relative_to(base)
            break
    return posixpath.normpath(given.as_posix())


class Subscriptions:
    """The subscriptions of one conversation: in the store once it is a stored session, in memory before."""

    def __init__(self, store: SubscriptionStore, workspace: Path) -> None:
        self._store = store
        self.workspace = workspace
        self.session_id: str | None = None
        """The stored session they belong to; None until its row exists (``attach``)."""
        self._pending: list[Subscription] = []
        self._next = 1

    def add(self, text: str) -> Added:
        """Subscribe to ``text`` (see ``parse_target``); a target already subscribed is returned as it is.

        Raises:
            BadSubscription: the target cannot be subscribed.
        """
        kind, target = parse_target(text, self.workspace)
        warning = ""
        if kind == "glob" and next(glob_files(target, self.workspace), None) is None:
            warning = f"{target!r} matches no file now; kept: files that appear later will show."
        if self.session_id is not None:
            subscription, new = self._store.add(self.session_id, kind, target)
            return Added(subscription, new, warning)
        same = next((s for s in self._pending if (s.kind, s.target) == (kind, target)), None)
        if same is not None:
            return Added(same, False, warning)
        subscription = Subscription(self._next, kind, target, time.time())
        self._next += 1
        self._pending.append(subscription)
        return Added(subscription, True, warning)

    def remove(self, ref: str) -> list[Subscription]:
        """Unsubscribe ``ref``: an id (``2`` or ``[2]``), or ``all``; returns what was removed.

        Raises:
            BadSubscription: ``ref`` is not a number or ``all``, or no subscription has that id.
        """
        ref = ref.strip()
        if ref == "all":
            return [self._remove(s.id) for s in self.active()]
        number = ref.removeprefix("[").removesuffix("]")
        if not number.isdigit():
            raise BadSubscription(f"{ref!r} is not a subscription id: give the number shown in brackets, or 'all'.")
        return [self._remove(int(number))]

    def _remove(self, subscription_id: int) -> Subscription:
        if self.session_id is not None:
            gone = self._store.remove(self.session_id, subscription_id)
        else:
            gone = next((s for s in self._pending if s.id == subscription_id), None)
            self._pending = [s for s in self._pending if s.id != subscription_id]
        if gone is None:
            ids = ", ".join(f"[{s.id}] {s.label}" for s in self.active()) or "none"
            raise BadSubscription(f"no subscription {subscription_id} in this conversation (it has: {ids}).")
        return gone

    def active(self) -> list[Subscription]:
        """The conversation's subscriptions, by id."""
        return self._store.active(self.session_id) if self.session_id is not None else list(self._pending)

    def attach(self, session_id: str) -> int:
        """Make this the set of session ``session_id``; subscriptions made before go into it. Returns how many did."""
        self.session_id = session_id
        pending, self._pending, self._next = self._pending, [], 1
        for subscription in pending:
            stored, new = self._store.add(session_id, subscription.kind, subscription.target, prefer_id=subscription.id)
            if new and subscription.seen is not None:
                self._store.mark_seen(session_id, stored.id, subscription.seen)
        return len(pending)

    def readings(self, memory: MemoryStore) -> list[Reading]:
        """What each subscription holds now."""
        return [read(subscription, self.workspace, memory) for subscription in self.active()]

    def prompt_section(self, memory: MemoryStore, limit: int) -> str:
        """This task's prompt section (``subscription_prompt.section``); records what it shows for the next task."""
        if limit <= 0:
            return ""
        readings = self.readings(memory)
        built = section(readings, limit)
        if self.session_id is None:  # a first task's prompt comes before its session's row: kept until ``attach``
            self._pending = [replace(s, seen=dict(built.seen.get(s.id, {}))) for s in self._pending]
            return built.text
        for reading in readings:
            seen = built.seen.get(reading.subscription.id, {})
            if seen != reading.subscription.seen:
                self._store.mark_seen(self.session_id, reading.subscription.id, seen)
        return built.text


class SubscribeArgs(ToolArgs):
    """Arguments of ``subscribe``."""

    target: str = Field(description=f"What to follow: {_EXAMPLES}. Paths and globs are relative to the workspace.")


class UnsubscribeArgs(ToolArgs):
    """Arguments of ``unsubscribe``."""

    id: int = Field(description="The subscription's id, shown in brackets in the Subscriptions section.")


def subscription_tools(subscriptions: Subscriptions) -> dict[str, ToolSpec]:
    """``subscribe`` and ``unsubscribe`` over one conversation's ``subscriptions`` (effect ``memory``, level 0)."""

    def subscribe(args: SubscribeArgs, _ctx: ToolContext) -> ToolResult:
        try:
            added = subscriptions.add(args.target)
        except BadSubscription as exc:
            raise ToolError(f"Not subscribed: {exc}") from None
        sub = added.subscription
        if not added.new:
            return ToolResult.success(f"Already subscribed as [{sub.id}] {sub.label}.")
        said = (
            f"Subscribed as [{sub.id}] {sub.label}: from the next task on, its fresh content is in your "
            "instructions (read_file shows a file now)."
        )
        return ToolResult.success(said + (f" Note: {added.warning}" if added.warning else ""))

    def unsubscribe(args: UnsubscribeArgs, _ctx: ToolContext) -> ToolResult:
        try:
            (gone,) = subscriptions.remove(str(args.id))
        except BadSubscription as exc:
            raise ToolError(f"Not unsubscribed: {exc}") from None
        return ToolResult.success(f"Unsubscribed [{gone.id}] {gone.label}; from the next task on it is not shown.")

    return {
        "subscribe": ToolSpec(
            "subscribe",
            "Follow a file, glob or memory query: its fresh content is put in your "
            "instructions at the start of every later task (no approval needed).",
            SubscribeArgs,
            "memory",
            0,
            subscribe,
        ),
        "unsubscribe": ToolSpec(
            "unsubscribe", "Stop following a subscription, by its id.", UnsubscribeArgs, "memory", 0, unsubscribe
        ),
    }
