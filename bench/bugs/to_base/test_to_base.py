from to_base import to_base


def test_binary_and_hex():
    assert to_base(10, 2) == "1010"
    assert to_base(255, 16) == "ff"


def test_against_int():
    for n in (1, 7, 36, 100, 12345):
        for base in (3, 8, 36):
            assert int(to_base(n, base), base) == n


def test_zero():
    assert to_base(0, 5) == "0"
