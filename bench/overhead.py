"""Framework time per agent step, against a scripted OpenAI-compatible server on 127.0.0.1.

Every client replays the same 50-step tool-calling conversation (50 tool calls, then a final
answer) with its growing message list, so the model's time is zero and what is left is the
client's own work: building the request, validating the history, parsing the reply, running the
tool. Reported as ms per step and as a ratio to the raw ``openai`` client doing the same calls.

    python bench/overhead.py [--steps 50] [--runs 5]

Prints a table and writes ``bench/results/overhead.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

import httpx

from chrysalis.llm.testing import ScriptedOpenAIServer, ScriptedReply

RESULTS = Path(__file__).parent / "results" / "overhead.json"
SYSTEM = "You are a coding agent. Use the tools to inspect the repository, then answer."
TASK = "Read every chunk of the log and tell me what failed."
TOOL_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_chunk",
        "description": "Read one chunk of the log.",
        "parameters": {"type": "object", "properties": {"i": {"type": "integer"}}, "required": ["i"]},
    },
}


def read_chunk(i: int) -> str:
    """Read one chunk of the log."""
    return f"chunk {i}: " + "ok " * 60


def native_script(steps: int) -> list[ScriptedReply | str]:
    return [ScriptedReply.tool_call("read_chunk", {"i": i}) for i in range(steps)] + ["Nothing failed."]


def text_script(steps: int) -> list[ScriptedReply | str]:
    calls = [json.dumps({"tool_to_use": "read_chunk", "parameters": {"i": i}}) for i in range(steps)]
    return [*calls, '{"final_answer": "Nothing failed."}']


async def run_raw_openai(url: str, steps: int) -> None:
    from openai import AsyncOpenAI

    async with AsyncOpenAI(base_url=url, api_key="none", max_retries=0) as client:
        messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
        for _ in range(steps + 1):
            response = await client.chat.completions.create(
                model="bench", messages=messages, tools=[cast(Any, TOOL_SPEC)]
            )
            message = response.choices[0].message
            if not message.tool_calls:
                return
            messages.append(message.model_dump(exclude_none=True))
            for call in message.tool_calls:
                args = json.loads(call.function.arguments)  # type: ignore[union-attr]
                messages.append({"role": "tool", "tool_call_id": call.id, "content": read_chunk(**args)})


async def run_plain_httpx(url: str, steps: int) -> None:
    async with httpx.AsyncClient() as client:
        messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
        for _ in range(steps + 1):
            body = {"model": "bench", "messages": messages, "tools": [TOOL_SPEC]}
            message = (await client.post(url + "/chat/completions", json=body)).json()["choices"][0]["message"]
            if not message.get("tool_calls"):
                return
            messages.append(message)
            for call in message["tool_calls"]:
                content = read_chunk(**json.loads(call["function"]["arguments"]))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})


async def run_pydantic_ai(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.usage import UsageLimits

    from chrysalis.config import Settings
    from chrysalis.llm.providers import build_model

    agent = Agent(build_model(Settings(model="bench", base_url=url)), instructions=SYSTEM, tools=[read_chunk])
    async with agent:
        result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == "Nothing failed.", result.output


async def run_stock_pydantic_ai(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.usage import UsageLimits

    model = OpenAIChatModel("bench", provider=OpenAIProvider(base_url=url, api_key="none"))
    agent = Agent(model, instructions=SYSTEM, tools=[read_chunk])
    async with agent:
        result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == "Nothing failed.", result.output


async def run_text_protocol(url: str, steps: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.usage import UsageLimits

    from chrysalis.llm.openai_compat import OpenAICompatBackend
    from chrysalis.llm.text_protocol import TextToolModel

    model = TextToolModel(OpenAICompatBackend("bench", url))
    agent = Agent(model, instructions=SYSTEM, tools=[read_chunk])
    result = await agent.run(TASK, usage_limits=UsageLimits(request_limit=steps + 5))
    assert result.output == "Nothing failed.", result.output


async def run_session(url: str, steps: int) -> None:
    """The whole chrysalis run: gated tools (policy, guards), streaming, events, traces and evals in SQLite."""
    import os
    import tempfile

    from chrysalis.agent.loop import AgentSession
    from chrysalis.config import load_settings
    from chrysalis.tools.base import ToolArgs, ToolContext, ToolResult, ToolSpec

    class ReadChunkArgs(ToolArgs):
        i: int

    def run_read_chunk(args: ReadChunkArgs, _ctx: ToolContext) -> ToolResult:
        return ToolResult.success(read_chunk(args.i))

    spec = ToolSpec(name="read_chunk", description="Read one chunk of the log.", args=ReadChunkArgs,
                    effect="read", level=0, run=run_read_chunk)  # fmt: skip
    previous = os.environ.get("CHRYSALIS_HOME")
    with tempfile.TemporaryDirectory() as home:
        os.environ["CHRYSALIS_HOME"] = home
        settings = load_settings({"workspace": home, "model": "bench", "base_url": url, "max_steps": steps + 5})
        session = AgentSession(settings, tools={"read_chunk": spec})
        try:
            result = await session.run(TASK)
        finally:
            session.close()
            if previous is None:
                del os.environ["CHRYSALIS_HOME"]
            else:
                os.environ["CHRYSALIS_HOME"] = previous
    assert result.output == "Nothing failed.", result.output


Runner = Callable[[str, int], Coroutine[Any, Any, None]]
CLIENTS: dict[str, tuple[Runner, Callable[[int], list[ScriptedReply | str]]]] = {
    "plain httpx + json": (run_plain_httpx, native_script),
    "openai client (raw)": (run_raw_openai, native_script),
    "pydantic-ai Agent + stock OpenAIChatModel": (run_stock_pydantic_ai, native_script),
    "chrysalis: pydantic-ai Agent + build_model(base_url)": (run_pydantic_ai, native_script),
    "chrysalis: TextToolModel + OpenAICompatBackend": (run_text_protocol, text_script),
    "chrysalis: whole AgentSession run (native tools)": (run_session, native_script),
}


def measure(runner: Runner, script: list[ScriptedReply | str], steps: int) -> float:
    """Seconds for one whole conversation, on a fresh server."""
    with ScriptedOpenAIServer(script, max_seconds=120) as server:
        start = time.perf_counter()
        asyncio.run(runner(server.base_url, steps))
        elapsed = time.perf_counter() - start
        assert len(server.requests) == steps + 1, len(server.requests)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows: dict[str, dict[str, float]] = {}
    for name, (runner, make_script) in CLIENTS.items():
        measure(runner, make_script(args.steps), args.steps)  # warm-up: imports, first connections
        times = [measure(runner, make_script(args.steps), args.steps) for _ in range(args.runs)]
        per_step = statistics.median(times) / (args.steps + 1) * 1000
        rows[name] = {
            "ms_per_step": round(per_step, 3),
            "min_ms_per_step": round(min(times) / (args.steps + 1) * 1000, 3),
        }
    baseline = rows["openai client (raw)"]["ms_per_step"]
    for row in rows.values():
        row["ratio_to_openai"] = round(row["ms_per_step"] / baseline, 2)
    print(f"{'client':<55} {'ms/step':>9} {'min':>8} {'vs openai':>10}")
    for name, row in rows.items():
        print(f"{name:<55} {row['ms_per_step']:>9.2f} {row['min_ms_per_step']:>8.2f} {row['ratio_to_openai']:>9.2f}x")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": "overhead",
        "steps": args.steps,
        "requests_per_run": args.steps + 1,
        "runs": args.runs,
        "statistic": "median over runs of (run seconds / requests)",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "results": rows,
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
