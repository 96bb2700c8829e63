"""The SKILL.md front matter reader: what YAML reads the same way, and what it refuses with the right line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chrysalis.capabilities.skills.front_matter import FrontMatterError, split_front_matter

FULL = """---
name: pdf-forms
description: >
  Fill in PDF forms.
  Use when the user
  asks for it.

  Second paragraph.
license: "MIT \\u00e9"   # a comment after a quoted value
quoted: 'it''s here'
metadata:
  author: me
  version: "1"
allowed-tools:
- Read
- Grep
plain: folded over
  two lines  # and a comment
flow: [a, b]
literal: |-
  line one
    indented
  line three
keep: |+
  x

# a comment line
empty:
only-comment: # nothing here
---
# Body

Text.
"""


def test_every_kind_of_value_is_read_as_yaml_reads_it() -> None:
    front = split_front_matter(FULL)
    values = {key: field.value for key, field in front.fields.items()}
    assert values == {
        "name": "pdf-forms",
        "description": "Fill in PDF forms. Use when the user asks for it.\nSecond paragraph.\n",
        "license": "MIT é",
        "quoted": "it's here",
        "metadata": 'author: me\nversion: "1"',
        "allowed-tools": "- Read\n- Grep",
        "plain": "folded over two lines",
        "flow": "[a, b]",
        "literal": "line one\n  indented\nline three",
        "keep": "x\n\n",
        "empty": "",
        "only-comment": "",
    }
    lines = {key: field.line for key, field in front.fields.items()}
    assert lines["name"] == 2 and lines["description"] == 3 and lines["license"] == 9 and lines["only-comment"] == 29
    assert front.end == 30 and front.body_line == 31
    assert front.body == "# Body\n\nText.\n"


@pytest.mark.parametrize(
    ("header", "expected"),
    [(">", "a b\nc\n"), (">-", "a b\nc"), ("|", "a\nb\n\nc\n"), ("|-", "a\nb\n\nc"), (">+", "a b\nc\n\n")],
)
def test_block_chomping(header: str, expected: str) -> None:
    text = f"---\ndescription: {header}\n  a\n  b\n\n  c\n\n---\n"
    assert split_front_matter(text).fields["description"].value == expected


def test_windows_line_ends_and_a_byte_order_mark_are_fine() -> None:
    front = split_front_matter("\ufeff---\r\nname: x\r\ndescription: 'y'\r\n---\r\nbody\r\n")
    assert front.fields["description"].value == "y" and front.fields["description"].line == 3
    assert front.body == "body\n"


def test_a_multi_line_quoted_value_is_folded() -> None:
    front = split_front_matter('---\ndescription: "Fill forms\n  and more: a lot"\n---\n')
    assert front.fields["description"].value == "Fill forms and more: a lot"


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("# Title\n", 1, "no front matter"),
        ("", 1, "no front matter"),
        ("---\nname: x\n", 1, "never closed"),
        ("---\nname: x\n  foo: bar\n---\n", 3, "': '"),
        ("---\n  name: x\n---\n", 2, "belongs to no key"),
        ("---\nname x\n---\n", 2, "expected 'key: value'"),
        ("---\nname:x\n---\n", 2, "a space after the colon"),
        ("---\nname: a\ndescription: b\nname: c\n---\n", 4, "'name' is set twice (first on line 2)"),
        ("---\ndescription: Use when: the user asks\n---\n", 2, "put the whole value in quotes"),
        ("---\ndescription: Use it when\n---\n", None, ""),
        ('---\ndescription: "abc\n---\n', 2, "never closed"),
        ("---\ndescription: >\n\tx\n---\n", 3, "tabs"),
        ("---\ndescription: `x` does y\n---\n", 2, "cannot start with '`'"),
        ('---\ndescription: "a" b\n---\n', 2, "only a comment may follow"),
        ('---\ndescription: "\\q"\n---\n', 2, "escape"),
        ("---\nname: x\ndescription: |\n    a\n  b\n---\n", 5, "indented less"),
        ("---\ndescription: |2\n  a\n---\n", 2, "a block starts with"),
    ],
)
def test_what_yaml_refuses_is_refused_on_its_line(text: str, line: int | None, needle: str) -> None:
    if line is None:
        split_front_matter(text)
        return
    with pytest.raises(FrontMatterError) as caught:
        split_front_matter(text)
    assert caught.value.line == line
    assert needle in caught.value.message


_TEXT = st.text(st.characters(codec="utf-8"), max_size=60)


@given(_TEXT)
def test_any_double_quoted_value_reads_back(value: str) -> None:
    text = f"---\nname: x\ndescription: {json.dumps(value)}\n---\nbody"
    assert split_front_matter(text).fields["description"].value == value


@given(_TEXT)
def test_any_single_quoted_value_without_line_breaks_reads_back(value: str) -> None:
    flat = " ".join(value.split()) if value.strip() else "x"
    quoted = "'" + flat.replace("'", "''") + "'"
    assert split_front_matter(f"---\ndescription: {quoted}\n---\n").fields["description"].value == flat
