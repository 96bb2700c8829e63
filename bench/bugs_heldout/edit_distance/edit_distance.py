"""Levenshtein distance, the edits that achieve it, and fuzzy lookup of the closest word."""


def _table(a, b):
    rows, cols = len(a) + 1, len(b) + 1
    table = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        table[i][0] = i
    for j in range(cols):
        table[0][j] = j
    for i in range(1, rows):
        for j in range(1, cols):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            table[i][j] = min(
                table[i - 1][j] + 1,  # delete a[i-1]
                table[i][j - 1] + 1,  # insert b[j-1]
                table[i - 1][j - 1] + cost,  # keep or substitute
            )
    return table


def distance(a, b):
    return _table(a, b)[len(a)][len(b)]


def edits(a, b):
    """A shortest list of edits turning a into b: ('keep'|'sub'|'del'|'ins', char) tuples, left to right."""
    table = _table(a, b)
    i, j = len(a), len(b)
    steps = []
    while i or j:
        if i and j and table[i][j] == table[i - 1][j - 1] + (a[i - 1] != b[j - 1]):
            steps.append(("keep", a[i - 1]) if a[i - 1] == b[j - 1] else ("sub", b[j - 1]))
            i, j = i - 1, j - 1
        elif i and table[i][j] == table[i - 1][j] + 1:
            steps.append(("del", a[i - 1]))
            i -= 1
        else:
            steps.append(("ins", b[j - 1]))
            j -= 1
    return steps[::-1]


def closest(word, vocabulary, max_distance=2):
    """The vocabulary word nearest to word (ties: alphabetical), or None if all are too far."""
    scored = sorted((distance(word, w), w) for w in vocabulary)
    if scored and scored[0][0] <= max_distance:
        return scored[0][1]
    return None
