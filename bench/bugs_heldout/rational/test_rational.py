import pytest
from rational import Rational, harmonic


def test_lowest_terms():
    r = Rational(6, -8)
    assert (r.num, r.den) == (-3, 4)
    assert str(r) == "-3/4"


def test_whole_numbers_print_plainly():
    assert str(Rational(10, 5)) == "2"
    assert repr(Rational(0, 7)) == "Rational(0, 1)"


def test_arithmetic():
    assert Rational(1, 2) + Rational(1, 3) == Rational(5, 6)
    assert Rational(1, 2) - Rational(3, 4) == Rational(-1, 4)
    assert Rational(2, 3) * Rational(9, 4) == Rational(3, 2)
    assert Rational(2, 3) / Rational(4, 9) == Rational(3, 2)


def test_mixing_with_ints():
    assert 1 + Rational(1, 2) == Rational(3, 2)
    assert Rational(1, 3) * 3 == 1


def test_parse():
    assert Rational.parse(" 3/12 ") == Rational(1, 4)
    assert Rational.parse("-0.125") == Rational(-1, 8)
    assert Rational.parse("7") == Rational(7)


def test_ordering_and_hashing():
    assert sorted([Rational(1, 2), Rational(-1, 3), Rational(1, 3)]) == [
        Rational(-1, 3),
        Rational(1, 3),
        Rational(1, 2),
    ]
    assert len({Rational(1, 2), Rational(2, 4)}) == 1


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        Rational(1, 0)
    with pytest.raises(ZeroDivisionError):
        Rational(1, 2) / Rational(0)


def test_harmonic():
    assert str(harmonic(4)) == "25/12"
    assert str(harmonic(10)) == "7381/2520"
