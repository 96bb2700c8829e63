"""Compaction on a real model: how many tokens a long conversation keeps, and whether a fact from turn 1 survives.

A conversation is built as it would be left by earlier runs: turn 1 states facts (the needles),
then turns in which the agent read a file (a tool call and its 1,500-character result) and
answered, until the history fills 85 % of the model's window. Then one run asks for the needles:

- ``compacted``: the session compacts first (``compact_at`` 0.7 of the window; the model writes the
  summary of all but the last two turns), then the model answers from the summary in its prompt;
- ``trimmed``: the same question with ``compact_at`` 0.95, so nothing is compacted and the history
  goes to the model as the provider takes it (the embedded model's text protocol keeps the newest
  20,000 characters, so turn 1 falls out): what a user had before compaction existed.

Each row: tokens before and after (estimated, four characters a token), the summary's length and
time, the answer, and whether every needle is in it. Stores go to a temporary ``CHRYSALIS_HOME``;
the weights come from ``$CHRYSALIS_MODEL_CACHE`` or the real home's ``models/``.

    python bench/compaction.py [--model local:qwen2.5-coder-1.5b] [--trials 3] [--modes compacted,trimmed]

Writes bench/results/compaction.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from chrysalis.config import chrysalis_home

RESULTS = Path(__file__).resolve().parent / "results" / "compaction.json"
QUESTION = "From our earlier conversation: what port does the staging server use, and what is the deploy key called?"
NEEDLES = (
    ("The staging server listens on port 8437 and the deploy key is named heron-blue.", ("8437", "heron-blue")),
    ("The staging server listens on port 5129 and the deploy key is named otter-green.", ("5129", "otter-green")),
    ("The staging server listens on port 7702 and the deploy key is named lark-amber.", ("7702", "lark-amber")),
)
FILE_LINES = 30


def conversation(needle: str, tokens: int) -> list[Any]:
    """Turn 1 states ``needle``; then file-reading turns until the history is about ``tokens`` tokens."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart, UserPromptPart

    from chrysalis.capabilities.compaction.summary import estimate_tokens

    messages: list[Any] = [
        ModelRequest(parts=[UserPromptPart(f"Remember this for later: {needle}")]),
        ModelResponse(parts=[TextPart("Noted.")]),
    ]
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
    model: Any, model_name: str, workspace: Path, needle: str, found: tuple[str, ...], compact_at: float
) -> dict[str, Any]:
    """One question after a long history, with compaction allowed (0.7) or not (0.95)."""
    from chrysalis.agent.session import AgentSession
    from chrysalis.capabilities.compaction.summary import context_window, estimate_tokens
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
    session.history = conversation(needle, int(0.85 * window))
    before = estimate_tokens(session.history)
    started = time.perf_counter()
    try:
        result = await session.run(QUESTION)
        answer = result.output or ""
    finally:
        session.close()
    compacted = next((e for e in events if isinstance(e, Compacted)), None)
    return {
        "compact_at": compact_at,
        "window": window,
        "tokens_before": before,
        "tokens_after": compacted.tokens_after if compacted else before,
        "summary_chars": compacted.summary_chars if compacted else 0,
        "compacted": compacted is not None,
        "seconds": round(time.perf_counter() - started, 1),
        "answer": answer[:300],
        "needle_kept": all(word.lower() in answer.lower() for word in found),
        "summary_has_needle": all(word in session.conversation.summary for word in found) if compacted else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--trials", type=int, default=3, help=f"needles to try (1 to {len(NEEDLES)})")
    parser.add_argument("--modes", default="compacted,trimmed", help="compacted (compact_at 0.7), trimmed (0.95)")
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
        for needle, found in NEEDLES[: options.trials]:
            for compact_at in [{"compacted": 0.7, "trimmed": 0.95}[mode] for mode in options.modes.split(",")]:
                row = asyncio.run(trial(model, options.model, workspace, needle, found, compact_at))
                rows.append({"needle": needle, **row})
                print(
                    f"{'compacted' if row['compacted'] else 'trimmed':<10} tokens {row['tokens_before']:>6} → "
                    f"{row['tokens_after']:>6}  needle {'kept' if row['needle_kept'] else 'LOST':<5} "
                    f"{row['seconds']:>6.1f} s  {row['answer'][:80]!r}",
                    flush=True,
                )
    summary = {
        kind: {
            "trials": len(mine),
            "needle_kept": sum(r["needle_kept"] for r in mine),
            "mean_tokens_after": round(sum(r["tokens_after"] for r in mine) / len(mine)),
            "mean_seconds": round(sum(r["seconds"] for r in mine) / len(mine), 1),
        }
        for kind, mine in (
            ("compacted", [r for r in rows if r["compact_at"] == 0.7]),
            ("trimmed", [r for r in rows if r["compact_at"] == 0.95]),
        )
        if mine
    }
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(
        json.dumps(
            {
                "model": options.model,
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                "summary": summary,
                "rows": rows,
            },
            indent=1,
        )
        + "\n"
    )
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
