import pytest

from expr_tokenizer import ParseError, evaluate, tokenize


def test_tokenize():
    kinds = [(t.kind, t.text) for t in tokenize("x1 + 2.5*(y)")]
    assert kinds == [
        ("name", "x1"),
        ("op", "+"),
        ("num", "2.5"),
        ("op", "*"),
        ("op", "("),
        ("name", "y"),
        ("op", ")"),
        ("end", ""),
    ]


def test_precedence():
    assert evaluate("1 + 2 * 3") == 7
    assert evaluate("(1 + 2) * 3") == 9


def test_power_is_right_associative():
    assert evaluate("2 ^ 3 ^ 2") == 512


def test_unary_minus():
    assert evaluate("-2 ^ 2") == 4
    assert evaluate("3 - -1") == 4


def test_variables_and_division():
    assert evaluate("rate * hours / 2", rate=10, hours=3) == 15.0


def test_no_spaces():
    assert evaluate("2*(3+4)") == 14


def test_errors():
    with pytest.raises(ParseError, match="unknown name"):
        evaluate("a + 1")
    with pytest.raises(ParseError, match="expected"):
        evaluate("(1 + 2")
    with pytest.raises(ParseError, match="unexpected"):
        evaluate("1 $ 2")
