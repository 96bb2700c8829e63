from edit_distance import edit_distance


def test_classic():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("flaw", "lawn") == 2


def test_substitution_only():
    assert edit_distance("abc", "axc") == 1


def test_empty():
    assert edit_distance("", "abc") == 3
    assert edit_distance("abc", "") == 3
    assert edit_distance("same", "same") == 0
