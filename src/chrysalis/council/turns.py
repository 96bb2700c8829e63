"""Plan and Realize (seed 003's routines B and C): what a winner is asked, and how its reply is shaped.

The Gate (``gate.py``) and the Arbiter (``arbiter.py``) decide who speaks without a model; this
module is the part around the model call. **Plan** turns the gate's reason into the persona's
move and writes the prompt: the persona's own prompt as the system message, then the topic, the
change under review (a diff or files, cut to fit the model's window), the turns so far, and why
this persona speaks now. **Realize** shapes the reply the way the seed's style policy does, in
code rather than by asking the model: plain text, brief (``MAX_SENTENCES`` sentences,
``MAX_CHARS`` characters), at most one question, with the persona's opener (and now and then an
idiom) drawn by the council's seeded ``Voice``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chrysalis.council.gate import GateResult, Turn
from chrysalis.council.personas import Persona
from chrysalis.llm.backend import ChatMessage

__all__ = ["MAX_CHARS", "MAX_SENTENCES", "MOVES", "plan", "realize"]

MAX_SENTENCES = 4
MAX_CHARS = 600
MAX_TURNS_SHOWN = 8
"""Earlier turns quoted in a prompt (the latest ones); older turns are dropped first."""
MOVES = {
    "mention": "You were asked by name: answer what was asked of you.",
    "trigger": "Something said touches your concern: address it directly.",
    "interject": "Add the one point from your angle that matters most and has not been made.",
}
"""Plan's move for each reason the gate gave to speak (seed 003: map intent to moves)."""
_RULES = (
    "You sit on a review council with other reviewers. Reply in plain text: at most "
    f"{MAX_SENTENCES} short sentences and at most one question; no lists, headings or code blocks. "
    "Do not repeat what another reviewer already said; you may agree or disagree with them by name. "
    "Be concrete: name the file, function or line when you can."
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_MARKUP = re.compile(r"^\s*(?:[-*•]|\d+[.)]|#+)\s*", re.MULTILINE)
_LABEL = re.compile(r"^(?:\w+(?: said)?:\s*)+", re.IGNORECASE)
"""A speaker's label the model wrote before its turn ("Ada:", "Phil said:")."""
_ECHO_MIN_CHARS = 16
"""Shorter sentences ("I agree.") may repeat by chance; longer ones found in an echo were copied."""


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _echoed(sentence: str, heard: Sequence[str]) -> bool:
    plain = _plain(sentence)
    return len(plain) >= _ECHO_MIN_CHARS and any(plain in echo for echo in heard)


def plan(persona: Persona, topic: str, context: str, history: Sequence[Turn], why: GateResult) -> list[ChatMessage]:
    """The messages of ``persona``'s turn: its prompt and the rules, then the topic, the change and the turns."""
    parts = [f"Topic: {topic.strip()}"]
    if context:
        parts.append(f"What is under review:\n{context}")
    if history:
        said = "\n".join(f'- {turn.persona.capitalize()} said: "{turn.text}"' for turn in history[-MAX_TURNS_SHOWN:])
        parts.append(f"The council so far:\n{said}")
    parts.append(f"Why you speak now: {why.reason} {MOVES.get(why.rule, '')}".strip())
    parts.append(
        f"Your turn, {persona.name.capitalize()}: your own view of what is under review, from your angle, in "
        f"2 to {MAX_SENTENCES} sentences. Start with your point; do not repeat the others or these instructions."
    )
    return [ChatMessage("system", f"{persona.prompt}\n\n{_RULES}"), ChatMessage("user", "\n\n".join(parts))]


def realize(reply: str, *, opener: str | None = None, idiom: str | None = None, echoes: Sequence[str] = ()) -> str:
    """The reply as the council shows it: plain, brief, one question at most, with the opener and idiom.

    A sentence found word for word in ``echoes`` (the persona's prompt, the earlier turns) is left
    out: small models copy the transcript or their instructions, and a copied turn would also
    "mention" whoever it names to the gate.
    """
    text = _MARKUP.sub("", reply.replace("```", " ").replace("**", "").replace("__", "")).strip()
    text = _LABEL.sub("", " ".join(text.split()))
    heard = [_plain(echo) for echo in echoes]
    sentences = [s for s in _SENTENCE.split(text) if s and not _echoed(s, heard)]
    kept: list[str] = []
    asked = False
    for sentence in sentences:
        if sentence.endswith("?"):
            if asked:
                continue
            asked = True
        kept.append(sentence)
        if len(kept) == MAX_SENTENCES:
            break
    text = " ".join(kept)
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"
    parts: list[str] = []
    for part in (opener, text, idiom):  # an opener or idiom that asks counts toward the one question
        if part and not (part is not text and part.rstrip().endswith("?") and asked):
            parts.append(part)
            asked = asked or part.rstrip().endswith("?")
    return " ".join(parts)
