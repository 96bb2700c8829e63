"""Split text into lowercase words."""
import re

WORD = re.compile(r"[a-z']+")


def tokenize(text):
    """'It's a Test.' -> ["it's", 'a', 'test']"""
    return WORD.findall(text.lower())


def sentence_count(text):
    return len([s for s in re.split(r"[.!?]+", text) if s.strip()])
