from __future__ import annotations

import asyncio
import itertools
import json

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, ModelRetry

from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.testing import ScriptedChatBackend
from chrysalis.llm.text_protocol import TextToolModel, trim_history


def add(a: int, b: int) -> int:
    """Add two integers.

    The second line is not shown in the catalog.
    """
    return a + b


def call(name: str, **args: object) -> str:
    return json.dumps({"tool_to_use": name, "parameters": args})


def run(model: TextToolModel, prompt: str = "What is 2 + 3?") -> object:
    agent = Agent(model, tools=[add], instructions="You are a careful assistant.")
    return asyncio.run(agent.run(prompt)).output


def test_tool_call_then_final_answer_through_a_real_agent() -> None:
    backend = ScriptedChatBackend([call("add", a=2, b=3), '{"final_answer": "2 + 3 = 5"}'])
    assert run(TextToolModel(backend)) == "2 + 3 = 5"
    first, second = backend.calls
    system = first[0]
    assert system.role == "system"
    assert system.content.startswith("You are a careful assistant.")
    assert "- add(a: integer, b: integer): Add two integers." in system.content
    assert "second line" not in system.content
    assert first[1:] == [ChatMessage("user", "What is 2 + 3?")]
    assert second[:2] == first  # the prompt only grows at the end: a stable prefix for the KV cache
    assert second[2:] == [
        ChatMessage("assistant", '{"tool_to_use": "add", "parameters": {"a": 2, "b": 3}}'),
        ChatMessage("user", "TOOL_RESULT for add:\n<tool_output>\n5\n</tool_output>"),
    ]


def test_fenced_call_with_prose_and_plain_text_answer() -> None:
    reply = 'I will add them.\n```json\n{"tool": "add", "arguments": {"a": 1, "b": 1}}\n```\nWait for the result.'
    backend = ScriptedChatBackend([reply, "The answer is 2."])
    assert run(TextToolModel(backend)) == "The answer is 2."
    # The history shows the call in the canonical form, which teaches the format.
    assert backend.calls[1][2].content == call("add", a=1, b=1)


def test_malformed_reply_is_corrected_and_counted() -> None:
    backend = ScriptedChatBackend(['{"tool_to_use": "add", "parameters": {"a": 1', call("add", a=1, b=2), "3"])
    model = TextToolModel(backend)
    agent = Agent(model, tools=[add])
    result = asyncio.run(agent.run("1+2?"))
    assert result.output == "3"
    assert model.corrections == 1
    retry_prompt = backend.calls[1]
    assert retry_prompt[-2] == ChatMessage("assistant", '{"tool_to_use": "add", "parameters": {"a": 1')
    assert retry_prompt[-1].content.startswith("Your last reply was not valid: it looks like a tool call")
    assert "Reply with exactly one JSON object" in retry_prompt[-1].content
    details = [m.provider_details for m in result.all_messages() if m.kind == "response"]
    assert details[0] is not None
    assert details[0]["corrections"] == 1
    assert details[1] is not None
    assert details[1]["corrections"] == 0
    # The correction exchange is not kept in the history: the next step sees only the good call.
    assert [m.role for m in backend.calls[2]] == ["system", "user", "assistant", "user"]


def test_unknown_tool_is_re_prompted_with_the_real_names() -> None:
    backend = ScriptedChatBackend([call("calculator", expr="1+2"), call("add", a=1, b=2), "3"])
    model = TextToolModel(backend)
    assert run(model) == "3"
    assert model.corrections == 1
    assert "there is no tool named 'calculator'; the tools are: add" in backend.calls[1][-1].content


def test_giving_up_after_max_corrections_raises_model_error() -> None:
    backend = ScriptedChatBackend([call("nope")] * 3)
    model = TextToolModel(backend, max_corrections=2)
    with pytest.raises(ModelError, match=r"kept replying with unusable tool calls \(3 tries; last: there is no tool"):
        run(model)
    assert model.corrections == 2


def test_json_schema_only_for_backends_that_support_it() -> None:
    plain = ScriptedChatBackend(["5"])
    run(TextToolModel(plain))
    assert plain.schemas == [None]
    constrained = ScriptedChatBackend(["5"], supports_json_schema=True)
    run(TextToolModel(constrained))
    schema = constrained.schemas[0]
    assert schema is not None
    assert schema["anyOf"][0]["properties"]["tool_to_use"] == {"const": "add"}
    assert schema["anyOf"][1]["required"] == ["final_answer"]


def test_streamed_text_goes_to_on_text() -> None:
    pieces: list[str] = []
    backend = ScriptedChatBackend(["All done here."])
    assert run(TextToolModel(backend, on_text=pieces.append)) == "All done here."
    assert "".join(pieces) == "All done here."


class Answer(BaseModel):
    value: int


def test_structured_output_uses_the_output_tool_and_no_final_answer() -> None:
    backend = ScriptedChatBackend([call("final_result", value=4)])
    agent = Agent(TextToolModel(backend), output_type=Answer)
    assert asyncio.run(agent.run("2+2")).output == Answer(value=4)
    system = backend.calls[0][0].content
    assert "- final_result(value: integer)" in system
    assert '{"final_answer"' not in system


def test_agent_without_tools_gets_plain_chat() -> None:
    backend = ScriptedChatBackend(["Hello!"])
    agent = Agent(TextToolModel(backend))
    assert asyncio.run(agent.run("hi")).output == "Hello!"
    assert backend.calls[0] == [ChatMessage("user", "hi")]


def test_usage_is_reported() -> None:
    backend = ScriptedChatBackend([call("add", a=1, b=1), "2"])
    agent = Agent(TextToolModel(backend), tools=[add])
    usage = asyncio.run(agent.run("1+1")).usage
    assert usage.requests == 2
    assert usage.input_tokens > 0
    assert usage.output_tokens > 0


def test_history_is_trimmed_with_a_stable_prefix() -> None:
    steps = 30
    replies = [call("add", a=i, b=1) for i in range(steps)] + ["done"]
    backend = ScriptedChatBackend(replies)
    model = TextToolModel(backend, history_chars=1500)
    assert run(model, "Add many numbers. " + "x" * 200) == "done"
    calls = backend.calls
    assert len(calls) == steps + 1
    for prompt in calls:
        assert prompt[0] == calls[0][0]  # system message never changes
        assert prompt[1].content.startswith("Add many numbers.")  # the task is always kept
        assert sum(len(m.content) for m in prompt[1:]) <= 1500 + 200
    last = calls[-1]
    assert "earlier messages were left out to fit the context" in last[1].content
    assert last[-1].content == f"TOOL_RESULT for add:\n<tool_output>\n{steps}\n</tool_output>"
    assert [m.role for m in last[1:]] == ["user", *(["assistant", "user"] * ((len(last) - 2) // 2))]
    # The cut moves in blocks, so most consecutive steps share their whole previous prompt.
    shared = sum(1 for before, after in itertools.pairwise(calls) if after[: len(before)] == before)
    assert shared >= steps * 0.6


def test_trim_history_leaves_short_history_alone() -> None:
    chat = [ChatMessage("user", "a"), ChatMessage("assistant", "b"), ChatMessage("user", "c")]
    assert trim_history(chat, 10) == chat
    long = [
        ChatMessage("user", "task"),
        *[ChatMessage("assistant" if i % 2 == 0 else "user", "x" * 100) for i in range(9)],
    ]
    trimmed = trim_history(long, 250, block=2)
    assert trimmed[0].content.startswith("task\n\n[8 earlier messages were left out")
    assert trimmed[1:] == long[9:]


def test_after_a_rejected_final_answer_the_next_reply_must_be_a_tool_call() -> None:
    backend = ScriptedChatBackend(
        ['{"final_answer": "add(1, 1) = 2"}', call("add", a=1, b=1), '{"final_answer": "2"}'],
        supports_json_schema=True,
    )
    agent = Agent(TextToolModel(backend), tools=[add])
    rejected: list[str] = []

    @agent.output_validator
    def must_use_the_tool(output: str) -> str:
        if not rejected:
            rejected.append(output)
            raise ModelRetry("Call add for real.")
        return output

    assert asyncio.run(agent.run("1+1?")).output == "2"
    first, retried, last = backend.schemas
    assert first is not None and retried is not None and last is not None
    assert any("final_answer" in option["properties"] for option in first["anyOf"])
    assert "anyOf" not in retried and retried["properties"]["tool_to_use"] == {"const": "add"}  # only the tool
    assert any("final_answer" in option["properties"] for option in last["anyOf"])
    assert backend.calls[0][0] == backend.calls[1][0]  # same system prompt: the KV cache prefix holds
    # The rejected answer is replayed in the protocol's own form.
    assert backend.calls[1][2] == ChatMessage("assistant", '{"final_answer": "add(1, 1) = 2"}')


async def stream_events(model: TextToolModel, prompt: str) -> tuple[str, list[str]]:
    """Run an agent that streams each request; return its output and the text deltas seen."""
    from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

    agent = Agent(model, tools=[add])
    texts: list[str] = []
    async with agent.iter(prompt) as run:
        async for node in run:
            if Agent.is_model_request_node(node):
                async with node.stream(run.ctx) as reply:
                    async for event in reply:
                        if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                            texts.append(event.part.content)
                        elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                            texts.append(event.delta.content_delta)
    assert run.result is not None
    return str(run.result.output), texts


def test_a_streamed_request_shows_the_answer_text_live_and_never_the_json() -> None:
    backend = ScriptedChatBackend([call("add", a=2, b=3), '{"final_answer": "The sum is \\"5\\", as add says."}'])
    raw: list[str] = []
    output, texts = asyncio.run(stream_events(TextToolModel(backend, on_text=raw.append), "2+3?"))
    assert output == 'The sum is "5", as add says.'
    assert "".join(texts) == output
    assert len(texts) == 2  # the scripted backend streams each reply in two pieces
    assert "".join(raw).startswith('{"tool_to_use"')  # on_text still gets the raw reply


def test_a_streamed_reply_that_was_corrected_keeps_only_the_parsed_parts() -> None:
    backend = ScriptedChatBackend(['{"final_answer": "half', call("add", a=1, b=1), '{"final_answer": "2"}'])
    output, texts = asyncio.run(stream_events(TextToolModel(backend), "1+1?"))
    assert output == "2"
    assert texts[0] == "half"  # already shown; the parsed response has the tool call instead
