"""Find log lines that contain a word."""


def grep(lines, word, settings):
    """Lines that contain word, in their original order."""
    return [line for line in lines if word in line]


def count_matches(lines, word, settings):
    return len(grep(lines, word, settings))
