from gcd import gcd, lcm


def test_gcd():
    assert gcd(48, 18) == 6
    assert gcd(17, 5) == 1
    assert gcd(0, 9) == 9
    assert gcd(9, 0) == 9


def test_lcm():
    assert lcm(4, 6) == 12
    assert lcm(7, 3) == 21
