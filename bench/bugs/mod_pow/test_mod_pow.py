from mod_pow import mod_pow


def test_against_pow():
    for base, exponent, modulus in [(2, 10, 1000), (3, 200, 13), (7, 0, 5), (10, 3, 7), (5, 117, 19)]:
        assert mod_pow(base, exponent, modulus) == pow(base, exponent, modulus)


def test_modulus_one():
    assert mod_pow(5, 3, 1) == 0
