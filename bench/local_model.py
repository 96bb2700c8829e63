"""Speed of the embedded model: prompt and generation tokens/s, and the time of one agent step.

For each model: load time; prompt evaluation (tokens/s over a fresh ~600-token prompt); generation
(tokens/s after the first token); one JSON-schema constrained tool-call step (a ~600-token system
prompt with four tools, plus a task) with a cold KV cache; then the next step of the same
conversation, which shares that prefix, so llama.cpp evaluates only the new tokens. The ratio of
the two step times is what KV-cache reuse buys per agent step.

    python bench/local_model.py [--models qwen2.5-coder-0.5b,qwen2.5-coder-1.5b] [--repeat 3]

By default the 0.5B model, plus the 1.5B one when its weights are cached. ``CHRYSALIS_HOME`` is a
temporary folder; the weights are read from the real cache (``$CHRYSALIS_MODEL_CACHE``, else
``$CHRYSALIS_HOME/models``). Prints a table and writes ``bench/results/local_model.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from chrysalis.config import chrysalis_home
from chrysalis.llm.backend import ChatMessage, Completion
from chrysalis.llm.local.catalog import get_local_model
from chrysalis.llm.local.llama_backend import LlamaCppBackend
from chrysalis.llm.local.weights import MODEL_CACHE_ENV, is_cached
from egress import provenance

RESULTS = Path(__file__).resolve().parent / "results" / "local_model.json"
MODELS = ("qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b")

TOOLS = {
    "read_file": ("Read a text file of the workspace, optionally only lines start..end.", ["path"]),
    "edit_file": ("Replace one exact, unique occurrence of old with new in a file.", ["path", "old", "new"]),
    "run_tests": ("Run the project's tests (pytest -q) and return the output.", []),
    "finish": ("Say the task is done, with a one-line summary of what changed.", ["summary"]),
}
RULES = [
    "Work in small steps: read before you edit, and run the tests after every edit.",
    "Never edit a test to make it pass; fix the code under test instead.",
    "An edit must quote the old text exactly, including indentation, and it must be unique in the file.",
    "Do not repeat a call that already failed with the same arguments; change something first.",
    "Keep answers short; the user reads the diff, not your prose.",
    "When the tests pass, call finish with a one-line summary.",
]


def system_prompt(nonce: str = "") -> str:
    """About 600 tokens: role, rules, the four tools and the reply format (as the agent's prompt)."""
    tools = "\n".join(
        f"- {name}({', '.join(f'{arg}: string' for arg in args)}): {doc}" for name, (doc, args) in TOOLS.items()
    )
    rules = "\n".join(f"{i}. {rule}" for i, rule in enumerate(RULES * 3, start=1))
    return (
        f"{nonce}You are Chrysalis, a careful coding agent working inside a small Python repository. "
        "You can only act through tools. Reply with exactly one JSON object: either a tool call "
        '{"tool_to_use": NAME, "parameters": {...}} or {"final_answer": TEXT}.\n\n'
        f"Rules:\n{rules}\n\nTools:\n{tools}\n\n"
        "The repository has calc.py (add, subtract) and tests/test_calc.py. Paths are relative to its root. "
        'Example of a good first step: {"tool_to_use": "read_file", "parameters": {"path": "calc.py"}}.'
    )


def step_schema() -> dict[str, Any]:
    """The constrained output: a call to one of the four tools with its arguments, or a final answer."""
    calls: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "tool_to_use": {"const": name},
                "parameters": {
                    "type": "object",
                    "properties": {arg: {"type": "string"} for arg in args},
                    "required": args,
                    "additionalProperties": False,
                },
            },
            "required": ["tool_to_use", "parameters"],
            "additionalProperties": False,
        }
        for name, (_doc, args) in TOOLS.items()
    ]
    answer = {"type": "object", "properties": {"final_answer": {"type": "string"}}, "required": ["final_answer"]}
    return {"anyOf": [*calls, answer]}


async def timed(backend: LlamaCppBackend, messages: list[ChatMessage], **kw: Any) -> tuple[Completion, float, float]:
    """Run one completion; return it, the total seconds and the seconds to the first streamed piece."""
    first: list[float] = []
    started = time.perf_counter()

    def on_text(_piece: str) -> None:
        if not first:
            first.append(time.perf_counter())

    completion = await backend.complete(messages, on_text=on_text, **kw)
    total = time.perf_counter() - started
    return completion, total, (first[0] - started) if first else total


async def measure_once(backend: LlamaCppBackend) -> dict[str, float]:
    """One round of every measurement; each starts from a prompt the KV cache has not seen."""
    prompt = [ChatMessage("system", system_prompt(uuid.uuid4().hex + "\n")), ChatMessage("user", "Say OK.")]
    done, seconds, _ = await timed(backend, prompt, max_tokens=1)
    prompt_tps = done.input_tokens / seconds

    essay = [ChatMessage("user", f"{uuid.uuid4().hex}\nWrite a Python module with five small utility functions.")]
    done, seconds, to_first = await timed(backend, essay, max_tokens=128)
    gen_tps = (done.output_tokens - 1) / (seconds - to_first)

    schema = step_schema()
    task = ChatMessage("user", "The test test_subtract fails. Make it pass.")
    step1 = [ChatMessage("system", system_prompt(uuid.uuid4().hex + "\n")), task]
    call, cold, _ = await timed(backend, step1, json_schema=schema, max_tokens=96)
    result = "def add(a, b):\n    return a + b\n\n\ndef subtract(a, b):\n    return a + b\n"
    step2 = [*step1, ChatMessage("assistant", call.text), ChatMessage("user", f"Tool result: {result}")]
    follow, warm, _ = await timed(backend, step2, json_schema=schema, max_tokens=96)
    valid = all(_is_valid(c.text) for c in (call, follow))
    return {
        "prompt_tokens_per_s": prompt_tps,
        "generation_tokens_per_s": gen_tps,
        "step_prompt_tokens": float(call.input_tokens),
        "step_output_tokens": float(call.output_tokens),
        "step_cold_s": cold,
        "next_step_prompt_tokens": float(follow.input_tokens),
        "next_step_shared_prefix_s": warm,
        "kv_reuse_speedup": cold / warm,
        "valid_json": float(valid),
    }


def _is_valid(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and (value.get("tool_to_use") in TOOLS or "final_answer" in value)


async def bench_model(name: str, home: Path, repeat: int, n_threads: int | None) -> dict[str, Any]:
    started = time.perf_counter()
    backend = LlamaCppBackend.load(name, home, n_ctx=4096, n_threads=n_threads)
    load_s = time.perf_counter() - started
    rounds = [await measure_once(backend) for _ in range(repeat)]
    medians = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    return {"model": f"local:{name}", "load_s": load_s, **medians, "rounds": rounds}


def print_table(rows: list[dict[str, Any]]) -> None:
    columns = [
        ("model", "model", "{}"),
        ("load s", "load_s", "{:.2f}"),
        ("prompt tok/s", "prompt_tokens_per_s", "{:.0f}"),
        ("gen tok/s", "generation_tokens_per_s", "{:.1f}"),
        ("step cold s", "step_cold_s", "{:.2f}"),
        ("next step s", "next_step_shared_prefix_s", "{:.2f}"),
        ("KV reuse ×", "kv_reuse_speedup", "{:.1f}"),
        ("step tokens in/out", "step_prompt_tokens", "{:.0f}"),
    ]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # plain text when rich is missing
        for row in rows:
            print("  ".join(f"{title}={fmt.format(row[key])}" for title, key, fmt in columns))
        return
    table = Table(title="embedded model local:qwen2.5-coder-* (medians)")
    for title, _key, _fmt in columns:
        table.add_column(title, justify="left" if title == "model" else "right")
    for row in rows:
        cells = [fmt.format(row[key]) for _title, key, fmt in columns]
        cells[0] = cells[0].removeprefix("local:qwen2.5-coder-")
        cells[-1] += f" / {row['step_output_tokens']:.0f}"
        table.add_row(*cells)
    console = Console()
    Console(width=max(console.width, 120)).print(table)  # keep the table readable when piped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated catalog names (default: 0.5B, plus 1.5B if cached)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per model; the table shows medians")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: every usable CPU)")
    args = parser.parse_args()
    cache = os.environ.get(MODEL_CACHE_ENV) or str(chrysalis_home() / "models")
    os.environ[MODEL_CACHE_ENV] = cache
    home = Path(tempfile.mkdtemp(prefix="chrysalis-bench-"))
    os.environ["CHRYSALIS_HOME"] = str(home)
    names = args.models.split(",") if args.models else [n for n in MODELS if is_cached(get_local_model(n), home)]
    rows = [asyncio.run(bench_model(name.strip(), home, args.repeat, args.threads)) for name in names]
    print_table(rows)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    machine = {"cpus": os.cpu_count(), "loadavg_at_end": os.getloadavg(), "python": platform.python_version()}
    report = {"provenance": provenance(), "machine": machine, "results": rows}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
