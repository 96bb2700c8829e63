import pytest
from prime_sieve import PrimeTable, divisor_count, totient


def test_primes_up_to_thirty():
    assert PrimeTable(30).primes() == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_smallest_table():
    assert PrimeTable(2).primes() == [2]
    with pytest.raises(ValueError, match="at least 2"):
        PrimeTable(1)


def test_membership():
    table = PrimeTable(100)
    assert 97 in table
    assert 91 not in table
    assert 1 not in table


def test_membership_outside_table():
    with pytest.raises(ValueError, match="outside the table"):
        assert 101 in PrimeTable(100)


def test_factorise():
    table = PrimeTable(100)
    assert table.factorise(360) == [2, 2, 2, 3, 3, 5]
    assert table.factorise(9973) == [9973]
    assert table.factorise(1) == []


def test_divisor_count_and_totient():
    table = PrimeTable(50)
    assert divisor_count(table, 36) == 9
    assert totient(table, 36) == 12
    assert totient(table, 1) == 1
