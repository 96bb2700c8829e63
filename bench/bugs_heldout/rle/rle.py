"""Run-length encoding of text without digits: "aaabcc" <-> "3ab2c" (a run of one has no count)."""

from itertools import groupby


def runs(text):
    """(character, length) for each run of equal characters."""
    for ch, group in groupby(text):
        yield ch, sum(1 for _ in group)


def encode(text, max_run=None):
    """Encode ``text``; runs longer than ``max_run`` are split so that no count exceeds it."""
    if any(ch.isdigit() for ch in text):
        raise ValueError("digits cannot be run-length encoded")
    pieces = []
    for ch, length in runs(text):
        while max_run and length > max_run:
            pieces.append(f"{max_run}{ch}")
            length -= max_run
        pieces.append(ch if length == 1 else f"{length}{ch}")
    return "".join(pieces)


def decode(encoded):
    pieces = []
    i = 0
    while i < len(encoded):
        j = i
        while j < len(encoded) and encoded[j].isdigit():
            j += 1
        if j == len(encoded):
            raise ValueError(f"count at {i} is not followed by a character")
        count = int(encoded[i:j]) if j > i else 1
        if count == 0:
            raise ValueError(f"zero count at {i}")
        pieces.append(encoded[j] * count)
        i = j + 1
    return "".join(pieces)


def compression_ratio(text):
    """Encoded length over original length (1.0 for empty text)."""
    return len(encode(text)) / len(text) if text else 1.0
