"""``chrysalis council "TOPIC"``: a panel of personas reviews a change or a plan, turn by turn, on the record.

Everything a user can get wrong is checked before the first model call (exit 2, naming it): an
empty topic, ``--turns`` or ``--max-speakers`` below 1, a persona that does not exist, a malformed
persona file, a ``--diff`` ref git does not know, a ``--file`` that cannot be read. The council is
a run in the durable runtime's ``runs`` table (so ``chrysalis show RUN`` and ``queue`` list it);
each of its events is kept as a signed record in ``run_events`` (``chrysalis provenance verify
RUN`` checks them) and in the trace store. A model failure ends it with exit 1 and one line; the
turns taken stay recorded and verify.

A persona without ``tools`` answers in one model call. A persona whose ``tools`` names a profile
answers as an agent run at level 1 in ``ask`` mode: it may read the workspace, through the one
policy, and change nothing.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from chrysalis.cli.render import print_warnings
from chrysalis.config import SettingFlags, Settings, load_settings
from chrysalis.council import Persona, load_personas
from chrysalis.council.meeting import Meeting
from chrysalis.errors import EXIT_FAILED, EXIT_OK, UsageError
from chrysalis.llm.backend import ChatMessage
from chrysalis.trust import is_trusted, read_trusted

if TYPE_CHECKING:
    from chrysalis.llm.sampling import Sampler
    from chrysalis.stores import Stores

__all__ = ["council_command"]

MAX_REPLY_TOKENS = 220
"""A turn is four short sentences; the cap leaves room for a model that rambles before Realize cuts it."""
CONTEXT_TOKENS = 6000
"""The most of the change (diff, files) put in a prompt: the embedded models' window is 8,192 tokens."""
CHARS_PER_TOKEN = 3


def council_command(
    flags: SettingFlags,
    topic: str,
    *,
    names: str | None,
    turns: int,
    max_speakers: int,
    diff: str | None,
    files: Sequence[Path],
    json_output: bool,
) -> int:
    """Hold the council and print it as it happens; 0 when it ended normally, 1 when a model call failed.

    Raises:
        UsageError: bad input (see the module docstring); nothing has been asked of a model then.
        ConfigError: a persona file or the configuration is malformed.
    """
    if not topic.strip():
        raise UsageError('The topic is empty: give what the council should discuss, e.g. chrysalis council "…".')
    for flag, value in (("--turns", turns), ("--max-speakers", max_speakers)):
        if value < 1:
            raise UsageError(f"{flag} {value}: give a whole number of 1 or more.")
    settings = load_settings(flags)
    print_warnings(settings.warnings)
    trusted = is_trusted(settings.workspace, read_trusted(settings.home / "config.toml"))
    panel = _panel(load_personas(settings.home, settings.workspace, trusted), names)
    context = _context(settings.workspace, diff, files)
    return asyncio.run(_hold(settings, topic, panel, context, turns, max_speakers, json_output))


def _panel(personas: Sequence[Persona], names: str | None) -> tuple[Persona, ...]:
    """The personas ``--personas`` names, in its order; every persona when it is not given."""
    if names is None:
        return tuple(personas)
    by_name = {p.name.casefold(): p for p in personas}
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name.casefold() not in by_name]
    if unknown or not wanted:
        known, missing = ", ".join(p.name for p in personas), ", ".join(map(repr, unknown)) or "named"
        raise UsageError(f"--personas {names!r}: no persona {missing}; known: {known}.")
    return tuple(dict.fromkeys(by_name[name.casefold()] for name in wanted))


def _context(workspace: Path, diff: str | None, files: Sequence[Path]) -> str:
    """The change under review: ``git diff REF`` and each file's text, cut to ``CONTEXT_TOKENS``."""
    parts: list[str] = []
    if diff is not None:
        parts.append(_git_diff(workspace, diff))
    for path in files:
        full = path if path.is_absolute() else workspace / path
        try:
            parts.append(f"{path}:\n{full.read_text(encoding='utf-8', errors='replace')}")
        except OSError as exc:
            raise UsageError(f"--file {path}: cannot read it ({exc.strerror or exc}).") from None
    text = "\n\n".join(parts)
    limit = CONTEXT_TOKENS * CHARS_PER_TOKEN
    if len(text) > limit:
        text = text[:limit] + f"\n[... {len(text) - limit} more characters cut to fit the model's window]"
    return text


def _git_diff(workspace: Path, ref: str) -> str:
    """``git diff REF`` of the workspace (tracked files; new files need ``git add`` first), for the prompt."""
    if ref.startswith("-"):  # `--diff=--output=x` must not become an option of git's
        raise UsageError(f"--diff {ref}: a REF is a commit, branch or tag, and cannot start with '-'.")
    inside = subprocess.run(["git", "rev-parse", "--git-dir"], cwd=workspace, capture_output=True, text=True)
    if inside.returncode != 0:
        raise UsageError(f"--diff {ref}: {workspace} is not a git repository, so there is no change to diff.")
    done = subprocess.run(["git", "diff", ref, "--"], cwd=workspace, capture_output=True, text=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        why = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[0] if lines else "")
        raise UsageError(f"--diff {ref}: git cannot diff against it in {workspace} ({why or 'git failed'}).")
    return f"git diff {ref}:\n{done.stdout.strip() or '(no changes)'}"


async def _hold(
    settings: Settings,
    topic: str,
    panel: tuple[Persona, ...],
    context: str,
    turns: int,
    max_speakers: int,
    json_output: bool,
) -> int:
    """The council as a run: recorded (signed) in the runtime's events and the traces, printed as it goes."""
    from chrysalis.cli.queue_cmd import open_runs
    from chrysalis.council.records import Recorder
    from chrysalis.runtime.keys import records_key
    from chrysalis.stores import Stores

    run_id = uuid.uuid4().hex[:12]
    show = _json_line if json_output else _Screen().show
    with open_runs(settings) as (_url, runs), Stores.open(settings.home) as stores:
        options = {"council": [p.name for p in panel], "turns": turns, "workspace": str(settings.workspace)}
        runs.add(run_id, topic, "normal", options)
        runs.set_status(run_id, "running")
        recorder = Recorder.for_run(runs, run_id, records_key(settings.home))

        def emit(event: Mapping[str, Any]) -> None:
            data = {key: value for key, value in event.items() if key not in ("type", "persona")}
            recorder.append(str(event["type"]), event.get("persona"), data)
            stores.traces.record(run_id, {"run_id": run_id, **event})
            show(event)

        speak = _Speakers(settings, stores)
        meeting = Meeting(topic, panel, speak, emit, run_id, context, turns, max_speakers)
        try:
            end = await meeting.run()
        except asyncio.CancelledError:
            runs.set_status(run_id, "cancelled", error="interrupted")
            raise
        result = {"output": "\n".join(f"{t.persona}: {t.text}" for t in end.turns)}
        runs.set_status(run_id, "failed" if end.error else "done", result=result, error=end.error)
    if end.error:
        Console(stderr=True, highlight=False, soft_wrap=True).print(Text(f"✘ council stopped: {end.error}", "red"))
    return EXIT_FAILED if end.error else EXIT_OK


class _Speakers:
    """The model's part of each turn: one call on the persona's model, or a read-only agent run with its tools."""

    def __init__(self, settings: Settings, stores: Stores) -> None:
        from chrysalis.agent.choice import routed_model

        self.settings = settings
        self.model = routed_model(settings, stores.evals, "explain")  # under `auto`, the router's pick
        self._samplers: dict[str, Sampler] = {}

    async def __call__(self, persona: Persona, messages: list[ChatMessage]) -> str:
        model = persona.model or self.model
        if persona.tools:
            return await self._agent(persona, model, messages)
        sampler = self._samplers.get(model)
        if sampler is None:
            from chrysalis.llm.sampling import Sampler

            sampler = await asyncio.to_thread(Sampler.for_model, model, self.settings, max_tokens=MAX_REPLY_TOKENS)
            self._samplers[model] = sampler
        return (await sampler.sample(messages, 0)).text

    async def _agent(self, persona: Persona, model: str, messages: list[ChatMessage]) -> str:
        """A level-1 ``ask``-mode run with the persona's tool profile: it reads through the policy, writes nothing."""
        from chrysalis.agent.session import AgentSession

        settings = replace(self.settings, level=1, mode="ask", profile=persona.tools or "", model=model)
        session = AgentSession(settings)
        try:
            result = await session.run("\n\n".join(m.content for m in messages))
        finally:
            session.close()
        return result.output


def _json_line(event: Mapping[str, Any]) -> None:
    print(json.dumps(dict(event)), flush=True)


class _Screen:
    """Who speaks and why, as it happens: the gate's answers, the arbiter's pick, the turns."""

    def __init__(self) -> None:
        self.console = Console(highlight=False, soft_wrap=True)
        self._wants: list[str] = []

    def show(self, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        if kind == "council_gate" and event["should_speak"]:
            self._wants.append(f"{event['persona']} ({event['confidence']:.2f}: {event['reason']})")
        elif kind == "council_arbiter":
            wants = "; ".join(self._wants) or "nobody"
            self.console.print(Text(f"round {event['round']}: wants to speak: {wants}", "dim"))
            self._wants = []
            if event["winners"]:
                scores = ", ".join(f"{n} {event['scores'][n]:.3f}" for n in event["winners"])
                self.console.print(Text(f"  floor to {scores}", "dim"))
        elif kind == "council_turn":
            self.console.print(Text.assemble((f"{event['persona']}: ", "bold cyan"), str(event["text"])))
        elif kind == "council_end":
            run = event["run_id"]
            self.console.print(Text(f"{event['turns']} turns · run {run} (chrysalis show {run})", "dim"))
