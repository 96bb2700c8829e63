from is_prime import is_prime


def test_small_numbers():
    assert [n for n in range(30) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_squares_of_primes():
    assert not is_prime(49)
    assert not is_prime(121)
    assert is_prime(7919)
