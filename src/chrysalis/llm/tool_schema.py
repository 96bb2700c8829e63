"""JSON schemas for the text tool protocol: what a valid reply looks like, and a short tool summary.

Kept apart from the protocol's model so the schema logic (reference inlining for llama.cpp's
json-schema-to-grammar, the one-of-the-tools shape) can be read and tested on its own.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic_ai.tools import ToolDefinition

__all__ = ["compact_params", "inline_refs", "tool_call_schema"]


def tool_call_schema(tools: Sequence[ToolDefinition], *, allow_final: bool = True) -> dict[str, Any]:
    """A JSON schema that admits only a call to one of ``tools`` with valid arguments, or a final answer.

    Given to a backend that constrains decoding (llama.cpp turns it into a grammar), it makes an
    unknown tool name or broken JSON impossible. ``$defs`` are inlined, which llama.cpp's
    json-schema-to-grammar handles best.
    """
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool_to_use": {"const": t.name}, "parameters": _object_schema(t.parameters_json_schema)},
            "required": ["tool_to_use", "parameters"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    if allow_final or not options:
        options.append(
            {
                "type": "object",
                "properties": {"final_answer": {"type": "string"}},
                "required": ["final_answer"],
                "additionalProperties": False,
            }
        )
    return options[0] if len(options) == 1 else {"anyOf": options}


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    inlined = inline_refs(schema)
    inlined.pop("$schema", None)
    inlined.setdefault("type", "object")
    if inlined["type"] == "object":
        inlined.setdefault("properties", {})
    return inlined


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace every local ``#/$defs/X`` reference by its definition; recursive ones admit any value."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def walk(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            key = ref.removeprefix("#/$defs/")
            target = {} if key in seen or key not in defs else walk(defs[key], seen | {key})
            return {**target, **{k: walk(v, seen) for k, v in node.items() if k != "$ref"}}
        return {k: walk(v, seen) for k, v in node.items()}

    result: dict[str, Any] = walk({k: v for k, v in schema.items() if k != "$defs"}, frozenset())
    return result


def compact_params(schema: dict[str, Any]) -> str:
    """A tool's parameters on one line, ``path: string, start?: integer``, to keep the prompt short."""
    inlined = inline_refs(schema)
    required = set(inlined.get("required", []))
    props: dict[str, Any] = inlined.get("properties", {})
    return ", ".join(f"{name}{'' if name in required else '?'}: {_type_name(p)}" for name, p in props.items())


def _type_name(prop: Any) -> str:
    if not isinstance(prop, dict):
        return "any"
    if "enum" in prop:
        return "|".join(json.dumps(v) for v in prop["enum"])
    kind = prop.get("type")
    if kind == "array":
        return f"list[{_type_name(prop.get('items', {}))}]"
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind:
        return str(kind)
    options = prop.get("anyOf") or prop.get("oneOf")
    return "|".join(_type_name(p) for p in options) if options else "any"
