from counter import count_words, format_top, top_words

TEXT = "the cat and the hat and the bat"


def test_count_words():
    assert count_words(TEXT)["the"] == 3


def test_top_words():
    assert top_words(TEXT, 2) == [("the", 3), ("and", 2)]


def test_format_top():
    assert format_top(TEXT, 1) == "the=3"
