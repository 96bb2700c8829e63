"""Signatures: what a language-model call takes and gives, as typed, described fields.

Two spellings of the same thing, as in DSPy::

    class QA(Signature):
        \"\"\"Answer the question with a whole number.\"\"\"      # the docstring is the instruction
        question: str = InputField()
        answer: int = OutputField(desc="just the number")

    QA2 = Signature.parse("question -> answer: int")           # untyped fields are str

A signature is a class that is never instantiated: it is a declaration. ``output_model()`` turns
its output fields into a pydantic model, which is what the provider is asked to fill (structured
output) and what validates the reply. Field types written as text (the shorthand, and archives
saved to SQLite) go through ``parse_type``, a small parser over a fixed set of types, never ``eval``.
"""

from __future__ import annotations

import inspect
import keyword
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast, get_args, get_origin

import pydantic

__all__ = ["FieldSpec", "InputField", "OutputField", "Signature", "as_signature", "parse_type", "type_text"]

_SCALARS: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool}
ALLOWED_TYPES = "str, int, float, bool, list[T], dict[str, T], Literal['a', 'b'], T | None"


@dataclass(frozen=True)
class FieldSpec:
    """One field of a signature: its name, type, description, and whether it is an input."""

    name: str
    annotation: Any
    desc: str = ""
    is_input: bool = True

    @property
    def type_text(self) -> str:
        """The type as the shorthand writes it (``list[int]``)."""
        return type_text(self.annotation)


class _FieldMarker:
    """What ``InputField()``/``OutputField()`` put in a class body until ``Signature`` collects it."""

    def __init__(self, *, is_input: bool, desc: str) -> None:
        self.is_input = is_input
        self.desc = desc


def InputField(*, desc: str = "") -> Any:
    """Declare an input field of a ``Signature`` (``desc`` tells the model what it holds)."""
    return _FieldMarker(is_input=True, desc=desc)


def OutputField(*, desc: str = "") -> Any:
    """Declare an output field of a ``Signature`` (``desc`` tells the model what to put there)."""
    return _FieldMarker(is_input=False, desc=desc)


class Signature:
    """Base class of signatures; subclass it with annotated ``InputField``/``OutputField`` attributes."""

    instructions: ClassVar[str] = ""
    fields: ClassVar[tuple[FieldSpec, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        hints = typing.get_type_hints(cls, include_extras=True)
        inherited = {f.name: f for f in cls.fields}  # a subclass extends its parent's fields
        own: dict[str, FieldSpec] = {}
        for name in inspect.get_annotations(cls):
            marker = cls.__dict__.get(name)
            if get_origin(hints[name]) is ClassVar:
                continue
            if not isinstance(marker, _FieldMarker):
                raise TypeError(
                    f"{cls.__name__}.{name} is annotated but not a field: write "
                    f"`{name}: ... = InputField()` or `= OutputField()`"
                )
            own[name] = FieldSpec(name, hints[name], marker.desc, marker.is_input)
            delattr(cls, name)
        cls.fields = tuple({**inherited, **own}.values())
        doc = cls.__dict__.get("__doc__")
        cls.instructions = inspect.cleandoc(doc or "") or _default_instructions(cls.fields)
        _check_fields(cls.__name__, cls.fields)

    def __init__(self) -> None:
        raise TypeError(f"{type(self).__name__} is a signature: pass the class to Predict(...), do not call it")

    @classmethod
    def input_fields(cls) -> tuple[FieldSpec, ...]:
        """The inputs, in declaration order."""
        return tuple(f for f in cls.fields if f.is_input)

    @classmethod
    def output_fields(cls) -> tuple[FieldSpec, ...]:
        """The outputs, in declaration order."""
        return tuple(f for f in cls.fields if not f.is_input)

    @classmethod
    def shorthand(cls) -> str:
        """The signature as one line: ``question -> answer: int``."""

        def side(specs: tuple[FieldSpec, ...]) -> str:
            return ", ".join(f.name if f.annotation is str else f"{f.name}: {f.type_text}" for f in specs)

        return f"{side(cls.input_fields())} -> {side(cls.output_fields())}"

    @classmethod
    def output_model(cls, *, reasoning: bool = False) -> type[pydantic.BaseModel]:
        """A pydantic model of the outputs (with a leading ``reasoning`` field for chain of thought)."""
        definitions: dict[str, Any] = {}
        if reasoning:
            # No maxLength: llama.cpp turns it into a grammar so large that decoding slows 50x (measured).
            definitions["reasoning"] = (str, pydantic.Field(description="Think step by step, briefly."))
        for spec in cls.output_fields():
            definitions[spec.name] = (spec.annotation, pydantic.Field(description=spec.desc or None))
        model: type[pydantic.BaseModel] = pydantic.create_model(f"{cls.__name__}Output", **definitions)
        return model

    @classmethod
    def example_model(cls) -> type[pydantic.BaseModel]:
        """A pydantic model of every field, to check (and coerce) training examples."""
        definitions: dict[str, Any] = {f.name: (f.annotation, ...) for f in cls.fields}
        model: type[pydantic.BaseModel] = pydantic.create_model(f"{cls.__name__}Example", **definitions)
        return model

    @classmethod
    def to_spec(cls) -> dict[str, Any]:
        """A JSON-able description that ``from_spec`` turns back into an equivalent signature."""
        return {
            "name": cls.__name__,
            "instructions": cls.instructions,
            "fields": [{"name": f.name, "type": f.type_text, "desc": f.desc, "input": f.is_input} for f in cls.fields],
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> type[Signature]:
        """Rebuild a signature saved with ``to_spec`` (e.g. from an archive in SQLite)."""
        fields = tuple(
            FieldSpec(
                str(f["name"]), parse_type(str(f["type"]), field=str(f["name"])), str(f["desc"]), bool(f["input"])
            )
            for f in spec["fields"]
        )
        return _make(str(spec["name"]), fields, str(spec["instructions"]))

    @classmethod
    def parse(cls, text: str, instructions: str | None = None, *, name: str = "Shorthand") -> type[Signature]:
        """Build a signature from the shorthand ``"in1, in2: int -> out: list[str]"``.

        Raises:
            ValueError: the text has no ``->``, a side is empty, a name is not an identifier, a name
                repeats, or a type is not one of the supported ones; the message quotes the bad part.
        """
        if text.count("->") != 1:
            raise ValueError(
                f"signature {text!r} needs exactly one '->' between inputs and outputs, e.g. 'question -> answer: int'"
            )
        left, right = text.split("->")
        fields = (*_parse_side(left, text, is_input=True), *_parse_side(right, text, is_input=False))
        return _make(name, fields, instructions or _default_instructions(fields))

    @classmethod
    def with_instructions(cls, instructions: str) -> type[Signature]:
        """The same fields with other instructions (a new class; this one is unchanged)."""
        return _make(cls.__name__, cls.fields, instructions)


def as_signature(value: str | type[Signature]) -> type[Signature]:
    """Accept a ``Signature`` subclass or its shorthand text.

    Raises:
        TypeError: ``value`` is neither.
        ValueError: the shorthand is malformed.
    """
    if isinstance(value, str):
        return Signature.parse(value)
    if isinstance(value, type) and issubclass(value, Signature) and value is not Signature:
        return value
    raise TypeError(f"expected a Signature subclass or a shorthand like 'question -> answer: int', got {value!r}")


def _make(name: str, fields: tuple[FieldSpec, ...], instructions: str) -> type[Signature]:
    _check_fields(name, fields)
    namespace: dict[str, Any] = {"__doc__": instructions}
    signature = cast(type[Signature], type(name, (Signature,), namespace))
    signature.fields = fields
    signature.instructions = instructions
    return signature


def _check_fields(name: str, fields: tuple[FieldSpec, ...]) -> None:
    if not fields:
        return  # an abstract base in a class hierarchy; Predict refuses it later
    seen: set[str] = set()
    for spec in fields:
        if spec.name in seen:
            raise ValueError(f"signature {name}: field {spec.name!r} appears twice; give each field one name")
        if spec.name == "reasoning" and not spec.is_input:
            raise ValueError(f"signature {name}: 'reasoning' is reserved for ChainOfThought; rename the output field")
        seen.add(spec.name)
    if not any(f.is_input for f in fields) or all(f.is_input for f in fields):
        raise ValueError(f"signature {name} needs at least one input field and one output field")


def _default_instructions(fields: tuple[FieldSpec, ...]) -> str:
    ins = ", ".join(f"`{f.name}`" for f in fields if f.is_input)
    outs = ", ".join(f"`{f.name}`" for f in fields if not f.is_input)
    return f"Given the fields {ins}, produce the fields {outs}."


_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _parse_side(side: str, whole: str, *, is_input: bool) -> list[FieldSpec]:
    parts = _split_top_level(side)
    if not parts:
        which = "inputs" if is_input else "outputs"
        raise ValueError(f"signature {whole!r} has no {which}; write at least one field name on that side of '->'")
    specs: list[FieldSpec] = []
    for part in parts:
        name, _, type_part = part.partition(":")
        name = name.strip()
        if not _NAME.match(name) or keyword.iskeyword(name):
            raise ValueError(f"signature {whole!r}: {name!r} is not a valid field name (use letters, digits and _)")
        annotation = parse_type(type_part.strip(), field=name) if type_part.strip() else str
        specs.append(FieldSpec(name, annotation, "", is_input))
    return specs


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets and quotes: ``a: dict[str, int], b: Literal['x, y']`` is two fields."""
    parts: list[str] = []
    depth, start, quote = 0, 0, ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
            continue
        if char in "'\"":
            quote = char
        depth += char == "["
        depth -= char == "]"
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def parse_type(text: str, *, field: str = "?") -> Any:
    """The annotation that ``text`` names (``"list[int]"`` → ``list[int]``) from a fixed set of types.

    Raises:
        ValueError: the type is not supported; the message names the field and the allowed types.
    """
    text = text.strip()
    try:
        return _parse_type(text)
    except ValueError as exc:
        raise ValueError(
            f"field {field!r} has type {text!r}, which is not supported ({exc}); use {ALLOWED_TYPES}"
        ) from None


def _parse_type(text: str) -> Any:
    alternatives = _split_union(text)
    if len(alternatives) > 1:
        parsed = [_parse_type(a) for a in alternatives]
        union = parsed[0]
        for item in parsed[1:]:
            union = union | item
        return union
    if text in _SCALARS:
        return _SCALARS[text]
    if text == "None":
        return type(None)
    match = re.fullmatch(r"(\w+)\[(.*)\]", text, re.DOTALL)
    if match is None:
        raise ValueError(f"unknown type {text!r}")
    head, inner = match.group(1), match.group(2)
    args = _split_top_level(inner)
    if head == "list" and len(args) == 1:
        return list[_parse_type(args[0])]  # type: ignore[misc]
    if head == "dict" and len(args) == 2 and args[0] == "str":
        return dict[str, _parse_type(args[1])]  # type: ignore[misc]
    if head == "Literal" and args:
        return Literal[tuple(_literal_value(a) for a in args)]
    raise ValueError(f"unknown type {text!r}")


def _split_union(text: str) -> list[str]:
    parts: list[str] = []
    depth, start = 0, 0
    for i, char in enumerate(text):
        depth += char == "["
        depth -= char == "]"
        if char == "|" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _literal_value(text: str) -> str | int | bool:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("True", "False"):
        return text == "True"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    raise ValueError(f"Literal values must be quoted strings, integers or booleans, got {text!r}")


def type_text(annotation: Any) -> str:
    """The text ``parse_type`` reads back as ``annotation`` (or ``repr`` for types it cannot write)."""
    if annotation is type(None):
        return "None"
    for name, scalar in _SCALARS.items():
        if annotation is scalar:
            return name
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is list and len(args) == 1:
        return f"list[{type_text(args[0])}]"
    if origin is dict and len(args) == 2:
        return f"dict[{type_text(args[0])}, {type_text(args[1])}]"
    if origin is Literal:
        return "Literal[" + ", ".join(repr(a) for a in args) + "]"
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(a) for a in args)
    return getattr(annotation, "__name__", repr(annotation))
