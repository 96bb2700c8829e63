import os
import sys

sys.path.insert(0, os.getcwd())

import counter
import words

TEXT = "A big dog and a small dog met a big cat. The dog ran!"


def test_tokenize_min_length():
    assert words.tokenize("a bb ccc dddd", min_length=3) == ["ccc", "dddd"]
    assert words.tokenize("Go to the big house", min_length=4) == ["house"]
    assert words.tokenize("a bb", min_length=1) == ["a", "bb"]


def test_tokenize_default_unchanged():
    assert words.tokenize("I am OK") == ["i", "am", "ok"]


def test_count_words_min_length():
    counts = counter.count_words(TEXT, min_length=4)
    assert dict(counts) == {"small": 1}
    counts = counter.count_words(TEXT, min_length=3)
    assert counts["dog"] == 3 and counts["big"] == 2
    assert "a" not in counts
    assert counter.count_words(TEXT)["a"] == 3


def test_top_words_min_length():
    assert counter.top_words(TEXT, n=2, min_length=3) == [("dog", 3), ("big", 2)]
    assert counter.top_words(TEXT, 1, min_length=2) == [("dog", 3)]
    assert counter.top_words(TEXT, 1) == [("a", 3)]
