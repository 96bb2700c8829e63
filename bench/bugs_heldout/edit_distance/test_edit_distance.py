from edit_distance import closest, distance, edits


def test_textbook_distances():
    assert distance("kitten", "sitting") == 3
    assert distance("flaw", "lawn") == 2


def test_empty_strings():
    assert distance("", "") == 0
    assert distance("abc", "") == 3
    assert distance("", "ab") == 2


def test_symmetric():
    assert distance("sunday", "saturday") == distance("saturday", "sunday") == 3


def test_edits_turn_one_word_into_the_other():
    steps = edits("kitten", "sitting")
    assert sum(op != "keep" for op, _ in steps) == 3
    assert steps[0] == ("sub", "s")
    assert steps[-1] == ("ins", "g")


def test_edits_of_identical_words():
    assert edits("abc", "abc") == [("keep", "a"), ("keep", "b"), ("keep", "c")]


def test_closest():
    words = ["apple", "apply", "ample", "maple"]
    assert closest("appel", words) == "apple"
    assert closest("xyz", words) is None
    assert closest("anything", []) is None
