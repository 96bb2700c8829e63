import pytest

from integer_roots import iroot, is_square, isqrt, perfect_power, simplify_sqrt


def test_isqrt_small():
    assert [isqrt(n) for n in range(10)] == [0, 1, 1, 1, 2, 2, 2, 2, 2, 3]


def test_isqrt_large():
    assert isqrt(10**40) == 10**20
    assert isqrt(10**40 - 1) == 10**20 - 1


def test_isqrt_negative():
    with pytest.raises(ValueError, match="negative"):
        isqrt(-1)


def test_iroot():
    assert iroot(27, 3) == 3
    assert iroot(26, 3) == 2
    assert iroot(2**100, 5) == 2**20


def test_is_square():
    assert is_square(144)
    assert not is_square(145)
    assert not is_square(-4)


def test_perfect_power():
    assert perfect_power(64) == (2, 6)
    assert perfect_power(1000) == (10, 3)
    assert perfect_power(12) == (12, 1)


def test_simplify_sqrt():
    assert simplify_sqrt(72) == (6, 2)
    assert simplify_sqrt(49) == (7, 1)
    assert simplify_sqrt(30) == (1, 30)
