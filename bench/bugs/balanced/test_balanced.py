from balanced import balanced


def test_balanced():
    assert balanced("f(a[1], {b: (2)})")
    assert balanced("")


def test_wrong_order_or_kind():
    assert not balanced("(]")
    assert not balanced("([)]")


def test_unclosed_or_unopened():
    assert not balanced("((")
    assert not balanced("())")
