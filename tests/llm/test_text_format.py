from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai.tools import ToolDefinition

from chrysalis.llm.text_format import (
    AnswerStream,
    FinalAnswer,
    Malformed,
    ToolCall,
    compact_params,
    inline_refs,
    parse_reply,
    protocol_prompt,
    tool_call_schema,
)

TOOLS = ["read_file", "edit_file"]


@pytest.mark.parametrize(
    "text",
    [
        '{"tool_to_use": "read_file", "parameters": {"path": "a.py"}}',
        '```json\n{"tool_to_use": "read_file", "parameters": {"path": "a.py"}}\n```',
        'Let me look at it.\n{"tool_to_use": "read_file", "parameters": {"path": "a.py"}}\nThen I will fix it.',
        '```\n{"tool": "read_file", "arguments": {"path": "a.py"}}\n```',
        '{"name": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}',
        '{"tool_name": "read_file", "args": {"path": "a.py"}}',
        '{"function": {"name": "read_file", "arguments": {"path": "a.py"}}}',
    ],
)
def test_tool_call_spellings(text: str) -> None:
    assert parse_reply(text, TOOLS) == ToolCall("read_file", {"path": "a.py"})


def test_parameters_may_be_missing() -> None:
    assert parse_reply('{"tool_to_use": "read_file"}', TOOLS) == ToolCall("read_file", {})


def test_final_answer_object_and_plain_text() -> None:
    assert parse_reply('{"final_answer": "Done: fixed add()."}', TOOLS) == FinalAnswer("Done: fixed add().")
    assert parse_reply("The bug was a wrong operator; fixed.", TOOLS) == FinalAnswer(
        "The bug was a wrong operator; fixed."
    )
    # Raw newlines inside strings are what small models write; accept them.
    assert parse_reply('{"final_answer": "line one\nline two"}', TOOLS) == FinalAnswer("line one\nline two")


def test_json_that_is_not_a_call_is_a_final_answer() -> None:
    text = 'The config is {"name": "x", "debug": true}.'
    assert parse_reply(text, TOOLS) == FinalAnswer(text)


def test_unknown_tool_is_malformed_and_lists_tools() -> None:
    result = parse_reply('{"tool_to_use": "delete_everything", "parameters": {}}', TOOLS)
    assert isinstance(result, Malformed)
    assert "'delete_everything'" in result.reason
    assert "read_file, edit_file" in result.reason


@pytest.mark.parametrize(
    "text",
    [
        '{"tool_to_use": "read_file", "parameters": {"path": "a.py"',
        '{"tool_to_use": read_file}',
        '{"tool_to_use": "read_file", "parameters": [1, 2]}',
    ],
)
def test_broken_calls_are_malformed(text: str) -> None:
    assert isinstance(parse_reply(text, TOOLS), Malformed)


class Span(BaseModel):
    start: int
    end: int


class EditArgs(BaseModel):
    path: str
    span: Span | None = None
    mode: str = "replace"


def _tool(name: str, schema: dict[str, Any], description: str = "Does things.\nMore detail.") -> ToolDefinition:
    return ToolDefinition(name=name, description=description, parameters_json_schema=schema)


def test_inline_refs_removes_defs() -> None:
    schema = EditArgs.model_json_schema()
    assert "$defs" in schema
    inlined = inline_refs(schema)
    assert "$defs" not in inlined
    assert "$ref" not in str(inlined)
    span = inlined["properties"]["span"]["anyOf"][0]
    assert span["properties"]["start"] == {"title": "Start", "type": "integer"}


def test_recursive_refs_admit_anything() -> None:
    schema = {
        "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}},
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
    }
    inlined = inline_refs(schema)
    assert inlined["properties"]["root"]["properties"]["child"] == {}


def test_tool_call_schema_is_one_object_per_tool_plus_final() -> None:
    tools = [_tool("read_file", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})]
    tools.append(_tool("edit_file", EditArgs.model_json_schema()))
    schema = tool_call_schema(tools)
    options = schema["anyOf"]
    assert [o["properties"].get("tool_to_use") for o in options] == [
        {"const": "read_file"},
        {"const": "edit_file"},
        None,
    ]
    assert options[2]["required"] == ["final_answer"]
    assert "$ref" not in str(schema)
    assert all(o["additionalProperties"] is False for o in options)
    assert tool_call_schema(tools, allow_final=False)["anyOf"][-1]["properties"]["tool_to_use"] == {
        "const": "edit_file"
    }


def test_catalog_is_compact_and_states_the_rules() -> None:
    tools = [_tool("edit_file", EditArgs.model_json_schema())]
    prompt = protocol_prompt(tools, allow_final=True)
    assert "- edit_file(path: string, span?: object|null, mode?: string): Does things." in prompt
    assert "More detail." not in prompt
    assert '{"tool_to_use": "TOOL_NAME", "parameters": {...}}' in prompt
    assert '{"final_answer"' in prompt
    assert '{"final_answer"' not in protocol_prompt(tools, allow_final=False)
    assert compact_params(
        {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}}}}
    ) == ("xs?: list[integer]")


def stream(text: str, size: int) -> list[str]:
    answer = AnswerStream()
    return [answer.feed(text[i : i + size]) for i in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_answer_stream_decodes_the_answer_whatever_the_piece_size(size: int) -> None:
    text = '{"final_answer": "said \\"hi\\"\\nthen \\u00e9t\\u00e9 \\\\ done"} trailing'
    assert "".join(stream(text, size)) == 'said "hi"\nthen été \\ done'


def test_answer_stream_shows_nothing_of_a_tool_call_even_with_an_answer_inside() -> None:
    call = '{"tool_to_use": "write_file", "parameters": {"path": "a", "content": "{\\"final_answer\\": \\"x\\"}"}}'
    assert "".join(stream(call, 3)) == ""


def test_answer_stream_skips_the_thought_and_a_code_fence() -> None:
    assert "".join(stream('```json\n{"thought": "a \\" b", "final_answer": "yes"}\n```', 4)) == "yes"


def test_answer_stream_yields_text_as_soon_as_it_arrives() -> None:
    pieces = stream('{"final_answer": "abcdef"}', 4)
    assert pieces == ["", "", "", "", "ab", "cdef", ""]
