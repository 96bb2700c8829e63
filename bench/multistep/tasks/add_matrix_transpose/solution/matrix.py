"""Helpers for matrices stored as lists of rows."""


def shape(m):
    """(rows, columns) of a matrix."""
    return (len(m), len(m[0]) if m else 0)


def row_sums(m):
    return [sum(row) for row in m]


def scale(m, factor):
    return [[x * factor for x in row] for row in m]


def identity(n):
    return [[1 if r == c else 0 for c in range(n)] for r in range(n)]


def transpose(m):
    """Rows become columns: [[1, 2], [3, 4]] -> [[1, 3], [2, 4]]."""
    return [list(column) for column in zip(*m)]
