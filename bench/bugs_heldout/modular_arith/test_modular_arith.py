import pytest
from modular_arith import extended_gcd, is_prime, mod_inverse, mod_pow, next_prime


def test_mod_pow_matches_builtin():
    assert mod_pow(3, 200, 1_000_007) == pow(3, 200, 1_000_007)
    assert mod_pow(7, 0, 13) == 1
    assert mod_pow(10, 5, 1) == 0


def test_mod_pow_negative_exponent_uses_inverse():
    assert mod_pow(3, -1, 11) == 4
    assert mod_pow(3, -2, 11) == 5


def test_extended_gcd_bezout():
    g, x, y = extended_gcd(240, 46)
    assert g == 2
    assert 240 * x + 46 * y == 2


def test_mod_inverse_rejects_non_coprime():
    with pytest.raises(ValueError, match="no inverse"):
        mod_inverse(6, 9)


def test_small_primes():
    assert [n for n in range(30) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_large_prime_and_composite():
    assert is_prime(1_000_000_007)
    assert not is_prime(1_000_000_007 * 998_244_353)


def test_carmichael_numbers_are_composite():
    assert not any(is_prime(n) for n in (561, 1105, 1729, 2465, 2821, 6601))


def test_next_prime():
    assert next_prime(0) == 2
    assert next_prime(13) == 17
    assert next_prime(1_000_000) == 1_000_003
