"""Compaction on a real model: how many tokens a long conversation keeps, and whether a fact from turn 1 survives.

A conversation is built as it would be left by earlier runs: turn 1 holds a fact (the needle: a
port and a key name), then turns in which the agent read a file (a tool call and its 1,500-character
result) and answered, until the history fills 85 % of the model's window. Then one run asks for the
needle. The fact comes from one of two sources (``--sources``):

- ``user``: the user states it in turn 1 ("Remember this for later: ..."). Compaction keeps what the
  user wrote word for word beside the summary, so this fact reaches the model whatever the summary
  says: the measure cannot fail through compaction (only the answer can be wrong). It is the bench's
  first measure, kept for comparison.
- ``tool``: a tool result states it (turn 1 reads ``deploy/staging.toml``; the user's words and the
  assistant's reply do not name the port or the key, and the file is not in the workspace to be read
  again). Only the model's own summary can keep it: this is the measure that can fail.

Each needle is asked in two modes:

- ``compacted``: the session compacts first (``compact_at`` 0.7 of the window; the model writes the
  summary of all but the last two turns), then the model answers from the summary in its prompt;
- ``trimmed``: the same question with ``compact_at`` 0.95, so nothing is compacted and the history
  goes to the model as the provider takes it (the embedded model's text protocol keeps the newest
  20,000 characters, so turn 1 falls out): what a user had before compaction existed.

Each row: tokens before and after (estimated, four characters a token), the summary's length and
time, the answer, whether every part of the needle is in it (``needle_kept``), in the whole summary
(``summary_has_needle``: with the user's copied words) and in the model's own part of it
(``model_summary_has_needle``). Stores go to a temporary ``CHRYSALIS_HOME``; the weights come from
``$CHRYSALIS_MODEL_CACHE`` or the real home's ``models/``.

    python bench/compaction.py [--model local:qwen2.5-coder-1.5b] [--trials 3] [--modes compacted,trimmed]
                               [--sources user,tool]

Writes bench/results/compaction.json: ``summary[mode][source]`` (trials, needle kept, mean tokens
after, mean seconds), the rows, and ``provenance`` (command, commit, date, machine and its load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chrysalis.config import chrysalis_home
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "compaction.json"
QUESTION = "From our earlier conversation: what port does the staging server use, and what is the deploy key called?"
FILE_LINES = 30
SOURCES = ("user", "tool")
MODES = {"compacted": 0.7, "trimmed": 0.95}


@dataclass(frozen=True)
class Needle:
    """The fact asked for: the staging server's port and the deploy key's name."""

    port: int
    key: str

    @property
    def found(self) -> tuple[str, str]:
        """What an answer (or a summary) must contain to keep the fact."""
        return str(self.port), self.key

    @property
    def sentence(self) -> str:
        return f"The staging server listens on port {self.port} and the deploy key is named {self.key}."

    @property
    def config(self) -> str:
        """The file that states the fact when a tool result is its only source."""
        return (
            f'# deploy/staging.toml\n[server]\nhost = "staging.internal"\nport = {self.port}\n\n'
            f'[deploy]\nkey_name = "{self.key}"\n'
        )


NEEDLES = (Needle(8437, "heron-blue"), Needle(5129, "otter-green"), Needle(7702, "lark-amber"))


def opening(needle: Needle, source: str) -> list[Any]:
    """Turn 1: the user states ``needle`` (``user``), or a file read states it and no one repeats it (``tool``)."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    if source == "user":
        return [
            ModelRequest(parts=[UserPromptPart(f"Remember this for later: {needle.sentence}")]),
            ModelResponse(parts=[TextPart("Noted.")]),
        ]
    if source != "tool":
        raise ValueError(f"unknown needle source {source!r}: choose from {', '.join(SOURCES)}")
    path = "deploy/staging.toml"
    return [
        ModelRequest(parts=[UserPromptPart(f"Read {path}; we will need it later.")]),
        ModelResponse(parts=[ToolCallPart("read_file", {"path": path}, tool_call_id="c0")]),
        ModelRequest(parts=[ToolReturnPart("read_file", needle.config, tool_call_id="c0")]),
        ModelResponse(parts=[TextPart(f"I have read {path}.")]),
    ]


def conversation(needle: Needle, tokens: int, source: str = "user") -> list[Any]:
    """Turn 1 holds ``needle`` (from ``source``); then file-reading turns until the history is about ``tokens``."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    from chrysalis.capabilities.compaction.summary import estimate_tokens

    messages = opening(needle, source)
    n = 0
    while estimate_tokens(messages) < tokens:
        n += 1
        body = "\n".join(f"def step_{n}_{i}(value):\n    return value * {i} + {n}" for i in range(FILE_LINES // 2))
        call = f"c{n}"
        messages += [
            ModelRequest(parts=[UserPromptPart(f"What does module_{n}.py do?")]),
            ModelResponse(parts=[ToolCallPart("read_file", {"path": f"module_{n}.py"}, tool_call_id=call)]),
            ModelRequest(parts=[ToolReturnPart("read_file", body, tool_call_id=call)]),
            ModelResponse(parts=[TextPart(f"module_{n}.py defines {FILE_LINES // 2} small arithmetic helpers.")]),
        ]
    return messages


async def trial(
    model: Any, model_name: str, workspace: Path, needle: Needle, source: str, compact_at: float
) -> dict[str, Any]:
    """One question after a long history, with compaction allowed (0.7) or not (0.95)."""
    from chrysalis.agent.session import AgentSession
    from chrysalis.capabilities.compaction.summary import USER_WORDS, context_window, estimate_tokens
    from chrysalis.config import load_settings
    from chrysalis.events import Compacted, Event

    settings = load_settings(
        {
            "model": model_name,
            "workspace": workspace,
            "mode": "ask",
            "level": 0,
            "compact_at": compact_at,
            "max_steps": 3,
            "timeout": 600,
        }
    )
    window = context_window(model_name, settings.home)
    events: list[Event] = []
    session = AgentSession(settings, model=model, on_event=events.append)
    session.history = conversation(needle, int(0.85 * window), source)
    before = estimate_tokens(session.history)
    started = time.perf_counter()
    try:
        result = await session.run(QUESTION)
        answer = result.output or ""
    finally:
        session.close()
    compacted = next((e for e in events if isinstance(e, Compacted)), None)
    summary = session.conversation.summary
    own = summary.partition(f"\n\n{USER_WORDS}\n")[0]
    return {
        "source": source,
        "compact_at": compact_at,
        "window": window,
        "tokens_before": before,
        "tokens_after": compacted.tokens_after if compacted else before,
        "summary_chars": compacted.summary_chars if compacted else 0,
        "compacted": compacted is not None,
        "seconds": round(time.perf_counter() - started, 1),
        "answer": answer[:300],
        "needle_kept": all(word.lower() in answer.lower() for word in needle.found),
        "summary_has_needle": all(word in summary for word in needle.found) if compacted else None,
        "model_summary_has_needle": all(word in own for word in needle.found) if compacted else None,
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per mode and needle source: trials, needles kept (in the answer, in the model's summary), tokens, seconds."""
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for mode, compact_at in MODES.items():
        for source in SOURCES:
            mine = [r for r in rows if r["compact_at"] == compact_at and r["source"] == source]
            if mine:
                summary.setdefault(mode, {})[source] = {
                    "trials": len(mine),
                    "needle_kept": sum(r["needle_kept"] for r in mine),
                    "model_summary_has_needle": sum(bool(r["model_summary_has_needle"]) for r in mine),
                    "mean_tokens_after": round(sum(r["tokens_after"] for r in mine) / len(mine)),
                    "mean_seconds": round(sum(r["seconds"] for r in mine) / len(mine), 1),
                }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--trials", type=int, default=3, help=f"needles to try (1 to {len(NEEDLES)})")
    parser.add_argument("--modes", default="compacted,trimmed", help="compacted (compact_at 0.7), trimmed (0.95)")
    parser.add_argument("--sources", default=",".join(SOURCES), help="who states the needle: user, tool")
    parser.add_argument("--out", type=Path, default=RESULTS)
    options = parser.parse_args()
    os.environ.setdefault("CHRYSALIS_MODEL_CACHE", str(chrysalis_home() / "models"))
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="chrysalis-compaction-") as tmp:
        os.environ["CHRYSALIS_HOME"] = str(Path(tmp) / "home")
        workspace = Path(tmp) / "ws"
        workspace.mkdir()
        from chrysalis.config import load_settings
        from chrysalis.llm.providers import build_model

        model = build_model(load_settings({"model": options.model, "workspace": workspace}))
        for needle in NEEDLES[: options.trials]:
            for source in options.sources.split(","):
                for mode in options.modes.split(","):
                    row = asyncio.run(trial(model, options.model, workspace, needle, source, MODES[mode]))
                    rows.append({"needle": needle.sentence, **row})
                    print(
                        f"{mode:<10} {source:<5} tokens {row['tokens_before']:>6} → {row['tokens_after']:>6}  "
                        f"needle {'kept' if row['needle_kept'] else 'LOST':<5} {row['seconds']:>6.1f} s  "
                        f"{row['answer'][:80]!r}",
                        flush=True,
                    )
    summary = summarise(rows)
    options.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"provenance": provenance(), "model": options.model, "summary": summary, "rows": rows}
    options.out.write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
