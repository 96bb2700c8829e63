from lcs_length import lcs_length


def test_classic():
    assert lcs_length("ABCBDAB", "BDCABA") == 4


def test_identical_and_disjoint():
    assert lcs_length("abc", "abc") == 3
    assert lcs_length("abc", "xyz") == 0


def test_empty():
    assert lcs_length("", "abc") == 0
