"""Word frequencies."""
from collections import Counter

from words import tokenize


def count_words(text, min_length=1):
    """Counter mapping each word to how often it occurs."""
    return Counter(tokenize(text, min_length))


def top_words(text, n=3, min_length=1):
    """The n most common words as (word, count) pairs."""
    return count_words(text, min_length).most_common(n)


def format_top(text, n=3):
    return ", ".join(f"{word}={count}" for word, count in top_words(text, n))
