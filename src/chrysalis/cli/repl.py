"""The interactive agent: a prompt with history and completion, tasks streamed, slash commands.

``Repl.handle`` does all the work for one line and is tested without a terminal; ``repl_command``
only adds prompt-toolkit around it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from chrysalis.agent.session import AgentSession
from chrysalis.capabilities.skills.discovery import discover_skills
from chrysalis.capabilities.subscriptions.following import BadSubscription
from chrysalis.cli.render import RichRenderer, print_warnings
from chrysalis.config import TABLE, SettingFlags, coerce_value, load_settings
from chrysalis.errors import ChrysalisError, ConfigError, UsageError
from chrysalis.stores.run_tree import undo_tree

__all__ = ["LIVE_SETTINGS", "SLASH_COMMANDS", "Repl", "repl_command", "show_subscriptions"]

LIVE_SETTINGS = ("mode", "level", "priority", "model")
"""The settings a slash command of the same name shows or changes; its help and checks come from the table."""

SLASH_COMMANDS: dict[str, str] = {
    "/help": "show this help",
    **{f"/{key}": f"show or set the {key}: /{key} {TABLE[key].hint}" for key in LIVE_SETTINGS},
    "/context": "show what the conversation holds (messages, estimated tokens, prompt size)",
    "/compact": "summarise the older turns (the model writes it) and keep the last two, to free context",
    "/undo": "restore the files the last task changed (by its tools, its commands and the sub-agents it started)",
    "/cost": "show tokens and USD spent in this session",
    "/evolve": "learn lessons from failed runs; kept only if a judge scores them better (/evolve history)",
    "/resume": "go on with an earlier session of this folder: /resume ID (without ID: list them)",
    "/fork": "go on in a copy of a session's conversation: /fork ID (without ID: this one), the original stays",
    "/subscribe": "show a file, glob or memory query fresh at every task: /subscribe src/app.py | src/**/*.py | "
    "memory:QUERY (without one: list them, with their sizes)",
    "/unsubscribe": "stop showing a subscription: /unsubscribe ID|all",
    "/exit": "leave (Ctrl-D works too)",
}


class Repl:
    """One interactive session: settings that slash commands change, and the agent session."""

    def __init__(self, session: AgentSession, console: Console) -> None:
        self.session = session
        self.console = console
        self._handlers: dict[str, Callable[[str], None]] = {
            "/help": self._help,
            **{f"/{key}": functools.partial(self._show_or_set, key) for key in LIVE_SETTINGS},
            "/model": self._model,
            "/context": self._context,
            "/compact": self._compact,
            "/undo": self._undo,
            "/cost": self._cost,
            "/evolve": self._evolve,
            "/resume": self._resume,
            "/fork": self._fork,
            "/subscribe": self._subscribe,
            "/unsubscribe": self._unsubscribe,
        }

    def handle(self, line: str) -> bool:
        """Handle one input line; returns False when the user wants to leave."""
        line = line.strip()
        if not line:
            return True
        if not line.startswith("/"):
            self._run_task(line)
            return True
        command, _, argument = line.partition(" ")
        if command in ("/exit", "/quit"):
            return False
        handler = self._handlers.get(command)
        if handler is None:
            self.console.print(f"Unknown command {command!r}. Commands: {', '.join(SLASH_COMMANDS)}")
            return True
        try:
            handler(argument.strip())
        except ChrysalisError as exc:
            self.console.print(Text(str(exc), style="red"))  # not markup: a message may quote '[1]' or a glob's '[ab]'
        return True

    def _run_task(self, task: str) -> None:
        try:
            asyncio.run(self.session.run(task))
        except ChrysalisError:
            pass  # the renderer has shown the error event; the session goes on
        except KeyboardInterrupt:
            self.console.print("[yellow]Interrupted; the conversation is kept.[/yellow]")

    def _set(self, key: str, value: str) -> None:
        """Check ``value`` as a flag or config line would be, and use it from the next task on."""
        choices = TABLE[key].choices
        if choices and value not in choices:
            raise ConfigError(f"/{key}: unknown {key} {value!r}. Allowed: {', '.join(choices)}.")
        settings = self.session.settings
        typed = coerce_value(key, value, f"/{key}")
        self.session.settings = dataclasses.replace(
            settings, **{key: typed}, sources={**settings.sources, key: f"/{key}"}
        )
        self.console.print(f"{key} = {getattr(self.session.settings, key)}")

    def _show_or_set(self, key: str, argument: str) -> None:
        if argument:
            self._set(key, argument)
        else:
            self.console.print(f"{key} = {getattr(self.session.settings, key)}")

    def _help(self, _argument: str) -> None:
        table = Table(show_header=False, box=None)
        for command, text in SLASH_COMMANDS.items():
            table.add_row(command, text)
        self.console.print(table)
        self.console.print("Anything else is a task for the agent.")

    def _model(self, argument: str) -> None:
        self._show_or_set("model", argument)
        if argument:
            self.session.reset_model()

    def _context(self, _argument: str) -> None:
        history, summary = self.session.history, self.session.conversation.summary
        s = self.session.settings
        compacted = f" · a summary of earlier turns ({len(summary):,} characters)" if summary else ""
        tokens = self.session.conversation.tokens()
        self.console.print(
            f"messages: {len(history)} · about {tokens:,} tokens{compacted} · mode {s.mode} · level {s.level} "
            f"· priority {s.priority!r} · model {s.model} · session {self.session.session_id}"
        )

    def _compact(self, _argument: str) -> None:
        done = asyncio.run(self.session.compact())  # its ``compaction`` event shows what it did
        if done is None:
            self.console.print("Nothing to compact yet: the conversation is no longer than the turns it keeps.")

    def _undo(self, _argument: str) -> None:
        settings = self.session.settings
        stores = self.session.stores
        report = undo_tree(stores.db, stores.checkpoints, settings.workspace, None)
        self.console.print(f"restored {len(report.restored)} file(s): " + ", ".join(str(p) for p in report.restored))
        for note in report.notes():
            self.console.print(note)

    def _cost(self, _argument: str) -> None:
        s = self.session
        self.console.print(f"session: {s.total_tokens} tokens · ${s.total_cost_usd:.4f} · model {s.settings.model}")

    def _resume(self, argument: str) -> None:
        if not argument:
            self._list_sessions()
            return
        info = self.session.conversation.resume(argument, flag="/resume")
        self.console.print(
            f"resumed session {info.id}: {_quoted(info.title)}, {len(self.session.history)} messages"
            f"{self._subscription_count()}",
            markup=False,
        )

    def _fork(self, argument: str) -> None:
        source = argument or self.session.session_id
        if source is None:
            self.console.print("Nothing to fork yet: run a task first, or /fork ID (see /resume for the IDs).")
            return
        info = self.session.conversation.fork(source)
        self.console.print(
            f"forked session {source} into {info.id}: {len(self.session.history)} messages"
            f"{self._subscription_count()}; session {source} stays as it was",
            markup=False,
        )

    def _subscription_count(self) -> str:
        """``, 2 subscriptions`` (``/subscribe`` lists them), or nothing when there are none."""
        count = len(self.session.conversation.subscriptions.active())
        return f", {count} subscription{'s' if count != 1 else ''} (/subscribe lists them)" if count else ""

    def _subscribe(self, argument: str) -> None:
        if not argument:
            show_subscriptions(self.session, self.console)
            return
        try:
            added = self.session.conversation.subscriptions.add(argument)
        except BadSubscription as exc:
            raise UsageError(f"/subscribe {argument}: {exc}") from None
        sub, stored = added.subscription, self.session.conversation.subscriptions.session_id is not None
        if not added.new:
            self.console.print(f"already subscribed as [{sub.id}] {sub.label}", markup=False)
        else:
            later = "" if stored else " (stored with the session its first task starts)"
            self.console.print(
                f"subscribed [{sub.id}] {sub.label}: its fresh content goes into the prompt at the "
                f"start of every task{later}",
                markup=False,
            )
        if added.warning:
            self.console.print(Text.assemble(("warning: ", "bold yellow"), added.warning))

    def _unsubscribe(self, argument: str) -> None:
        if not argument:
            self.console.print("usage: /unsubscribe ID|all (/subscribe lists them)")
            return
        try:
            gone = self.session.conversation.subscriptions.remove(argument)
        except BadSubscription as exc:
            raise UsageError(f"/unsubscribe {argument}: {exc}") from None
        if not gone:
            self.console.print("No subscriptions to remove.")
        for sub in gone:
            self.console.print(f"unsubscribed [{sub.id}] {sub.label}", markup=False)

    def _list_sessions(self) -> None:
        found = self.session.stores.sessions.recent(self.session.settings.workspace, 10)
        if not found:
            self.console.print("No earlier session in this folder.")
            return
        for info in found:
            current = " (this one)" if info.id == self.session.session_id else ""
            self.console.print(f"{info.id}  {info.messages:>3} messages  {_quoted(info.title)}{current}")
        self.console.print("/resume ID goes on with one.")

    def _evolve(self, argument: str) -> None:
        from chrysalis.agent.evolution import EvolveOptions
        from chrysalis.cli.evolve_cmd import evolve_command

        words = argument.split()
        history, rollback = words[:1] == ["history"], None
        if words[:1] == ["rollback"]:
            if len(words) != 2 or not words[1].isdigit():
                self.console.print("usage: /evolve rollback VERSION (see /evolve history)")
                return
            rollback = int(words[1])
        try:
            evolve_command(self.session.settings, EvolveOptions(), self.console, history=history, rollback=rollback)
        except ChrysalisError as exc:
            self.console.print(f"[red]{exc}[/red]")


def show_subscriptions(session: AgentSession, console: Console) -> None:
    """The conversation's subscriptions, each with what it holds now and its size, and the total against the limit."""
    from chrysalis.capabilities.memory.tools import open_memory

    subscriptions = session.conversation.subscriptions
    readings = subscriptions.readings(open_memory(session.stores, session.settings))
    if not readings:
        console.print("No subscriptions: /subscribe PATH, /subscribe src/**/*.py or /subscribe memory:QUERY adds one.")
        return
    for reading in readings:
        sub = reading.subscription
        console.print(f"[{sub.id}] {sub.label}  {reading.summary} · {reading.chars:,} characters", markup=False)
    total, limit = sum(r.chars for r in readings), session.settings.subscription_chars
    if not limit:
        shown = "subscription_chars = 0: none goes into the prompt"
    else:
        over = "" if total <= limit else "; above that each gets a share, cut with a marker that says so"
        shown = f"a task's prompt takes up to {limit:,} (subscription_chars){over}"
    later = "" if subscriptions.session_id else " Stored with the session the first task starts."
    console.print(f"{total:,} characters in all; {shown}.{later}", markup=False)


def _quoted(title: str) -> str:
    return repr(title if len(title) <= 60 else title[:59] + "…")


def repl_command(flags: SettingFlags) -> int:
    """Run the interactive loop until /exit or Ctrl-D."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import WordCompleter
    from prompt_toolkit.history import FileHistory

    from chrysalis.cli.approval import terminal_approver

    settings = load_settings(flags)
    print_warnings((*settings.warnings, *discover_skills(settings.workspace, settings.home).warnings()))
    settings.home.mkdir(parents=True, exist_ok=True)
    console = Console(highlight=False)
    approver = terminal_approver(lambda: session.settings.workspace, console=console)
    session = AgentSession(settings, approver=approver, on_event=RichRenderer(console))
    repl = Repl(session, console)
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(settings.home / "repl_history")),
        completer=WordCompleter(list(SLASH_COMMANDS), sentence=True),
    )
    console.print("Chrysalis — type a task, /help for commands, /exit to leave.")
    try:
        while True:
            try:
                line = prompt.prompt("chrysalis> ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not repl.handle(line):
                break
    finally:
        session.close()
    return 0
