import math

import pytest
from exact_roots import hypotenuse, iroot, is_square, isqrt, sqrt_floor_and_rest


def test_isqrt_small_values():
    assert [isqrt(n) for n in range(10)] == [0, 1, 1, 1, 2, 2, 2, 2, 2, 3]


def test_isqrt_huge_value_is_exact():
    n = 10**40 + 12345
    assert isqrt(n) == math.isqrt(n)


def test_cube_root():
    assert iroot(26, 3) == 2
    assert iroot(27, 3) == 3
    assert iroot(10**18, 3) == 10**6


def test_first_root_is_identity():
    assert iroot(17, 1) == 17


def test_rejects_bad_arguments():
    with pytest.raises(ValueError, match="non-negative"):
        isqrt(-4)
    with pytest.raises(ValueError, match="at least 1"):
        iroot(8, 0)


def test_is_square():
    assert is_square(0)
    assert is_square(144)
    assert not is_square(145)
    assert not is_square(-1)


def test_sqrt_floor_and_rest():
    assert sqrt_floor_and_rest(50) == (7, 1)


def test_hypotenuse():
    assert hypotenuse(3, 4) == 5
    assert hypotenuse(2, 3) is None
