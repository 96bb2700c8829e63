"""Split text into lowercase words."""
import re

WORD = re.compile(r"[a-z']+")


def tokenize(text, min_length=1):
    """'It's a Test.' -> ["it's", 'a', 'test']"""
    return [w for w in WORD.findall(text.lower()) if len(w) >= min_length]


def sentence_count(text):
    return len([s for s in re.split(r"[.!?]+", text) if s.strip()])
