"""One council, round by round: every persona's gate, the arbiter's pick, the winners' turns, in events.

Seed 003's ``SCMRouter`` is this loop. Each round:

    gate      every persona on the panel (``council_gate``: should_speak, confidence, reason)
    arbiter   min(max speakers, eligible, turns left) winners (``council_arbiter``: winners, losers, scores, bonus)
    turns     each winner, best first: Plan, the model, Realize (``council_turn``: persona, text)

It ends after ``turns`` turns, or at a round where no persona wants to speak, and always with
``council_end`` (turns, run_id, and ``error`` when a model call failed: the turns before it stand).
The gate's own cooldown is off: rule 3 of the arbiter (last round's winners wait while someone
else wants to speak) is the council's cooldown, counted in rounds.

The model is behind ``Speak`` (a persona and its messages in, the reply text out) and every event
goes to ``emit``, so this module needs neither a model nor a database: the CLI gives it both
(``cli/council_cmd.py``), and tests give it a script.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chrysalis.council.arbiter import DEFAULT_MAX_SPEAKERS, Arbiter
from chrysalis.council.gate import Gate, GateResult, Turn
from chrysalis.council.openers import Voice
from chrysalis.council.personas import Persona
from chrysalis.council.turns import plan, realize
from chrysalis.llm.backend import ChatMessage

__all__ = ["DEFAULT_MAX_SPEAKERS", "DEFAULT_TURNS", "CouncilEnd", "Meeting", "Speak"]

DEFAULT_TURNS = 8
Speak = Callable[[Persona, list[ChatMessage]], Awaitable[str]]
"""The model's part of a turn: ``persona``'s reply to the messages Plan wrote."""
Emit = Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class CouncilEnd:
    """How a council ended: its turns, and the model's error if one stopped it."""

    turns: tuple[Turn, ...]
    error: str | None = None


@dataclass
class Meeting:
    """A council on ``topic`` with ``personas``; ``context`` is the change under review (a diff, files)."""

    topic: str
    personas: Sequence[Persona]
    speak: Speak
    emit: Emit
    run_id: str
    context: str = ""
    turns: int = DEFAULT_TURNS
    max_speakers: int = DEFAULT_MAX_SPEAKERS
    seed: int = 0
    """Seeds the openers and idioms, so a council replays the same words for the same replies."""
    history: list[Turn] = field(default_factory=list[Turn])

    async def run(self) -> CouncilEnd:
        """Hold the council; the model's error (any exception from ``speak``) ends it with the turns so far.

        Cancelled (Ctrl-C), it still emits ``council_end`` (error ``interrupted``) before the cancel goes on.
        """
        try:
            error = await self._rounds()
        except asyncio.CancelledError:
            self._end("interrupted")
            raise
        self._end(error)
        return CouncilEnd(tuple(self.history), error)

    async def _rounds(self) -> str | None:
        arbiter = Arbiter(max_speakers=self.max_speakers, turn_budget=self.turns)
        gate, voice, by_name = Gate(cooldown=0), Voice(random.Random(self.seed)), {p.name: p for p in self.personas}
        round_ = 1
        while (arbiter.turns_left or 0) > 0:
            bids = {p.name: gate(p, self.topic, self.history, round_, arbiter.turns_left) for p in self.personas}
            for bid in bids.values():
                self._gate_event(bid)
            chosen = arbiter.select(bid.candidate(by_name[name].priority) for name, bid in bids.items())
            self.emit(
                {
                    "type": "council_arbiter",
                    "round": round_,
                    "winners": list(chosen.winners),
                    "losers": list(chosen.losers),
                    "scores": dict(chosen.scores),
                    "bonus": dict(chosen.bonus),
                }
            )
            if not chosen.winners:
                return None
            for name in chosen.winners:
                error = await self._turn(by_name[name], bids[name], round_, voice)
                if error is not None:
                    return error
            round_ += 1
        return None

    def _end(self, error: str | None) -> None:
        end: dict[str, Any] = {"type": "council_end", "turns": len(self.history), "run_id": self.run_id}
        if error is not None:
            end["error"] = error
        self.emit(end)

    def _gate_event(self, bid: GateResult) -> None:
        self.emit(
            {
                "type": "council_gate",
                "persona": bid.persona,
                "should_speak": bid.should_speak,
                "confidence": bid.confidence,
                "reason": bid.reason,
            }
        )

    async def _turn(self, persona: Persona, why: GateResult, round_: int, voice: Voice) -> str | None:
        """One winner's turn: Plan, the model, Realize; the error's one line when the model failed."""
        messages = plan(persona, self.topic, self.context, self.history, why)
        try:
            reply = await self.speak(persona, messages)
        except Exception as exc:  # the model's failure ends the council; the turns so far stand
            first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            return f"{persona.name}'s turn failed: {first_line}"
        echoes = [persona.prompt, *(turn.text for turn in self.history)]
        opener, idiom = voice.opener(persona.name, why.rule), voice.idiom(persona.name)
        text = realize(reply, opener=opener, idiom=idiom, echoes=echoes)
        if not text:
            text = "(no reply)"
        self.history.append(Turn(persona.name, text, round_))
        self.emit({"type": "council_turn", "persona": persona.name, "text": text})
        return None
