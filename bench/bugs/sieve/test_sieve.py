from sieve import primes_up_to


def test_small():
    assert primes_up_to(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_bounds():
    assert primes_up_to(1) == []
    assert primes_up_to(2) == [2]
    assert primes_up_to(49)[-1] == 47
