import pytest

from template import TemplateError, escape, render


def test_variables():
    assert render("Hello, {{ name }}!", {"name": "Ada"}) == "Hello, Ada!"


def test_missing_is_empty_but_zero_is_shown():
    assert render("[{{a}}|{{b}}]", {"b": 0}) == "[|0]"


def test_escaping():
    assert escape('<a href="x">&</a>') == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert render("{{x}} {{&x}}", {"x": "<b>"}) == "&lt;b&gt; <b>"


def test_escapes_every_occurrence():
    assert render("{{code}}", {"code": "a < b < c"}) == "a &lt; b &lt; c"


def test_dotted_names():
    assert render("{{user.name}} ({{user.age}})", {"user": {"name": "Bob", "age": 7}}) == "Bob (7)"


def test_list_sections_and_outer_lookup():
    context = {"sep": ";", "items": [{"n": 1}, {"n": 2}]}
    assert render("{{#items}}{{n}}{{sep}}{{/items}}", context) == "1;2;"


def test_inverted_and_nested_sections():
    template = "{{#a}}<{{#a}}in{{/a}}>{{/a}}{{^b}}no b{{/b}}"
    assert render(template, {"a": True, "b": []}) == "<in>no b"


def test_unclosed_section():
    with pytest.raises(TemplateError, match="not closed"):
        render("{{#x}}", {})
