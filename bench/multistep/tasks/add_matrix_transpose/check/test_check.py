import inspect
import os
import sys

sys.path.insert(0, os.getcwd())

import matrix
import ops


def test_transpose_square():
    assert matrix.transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]


def test_transpose_rectangular():
    assert matrix.transpose([[1, 2, 3]]) == [[1], [2], [3]]
    assert matrix.transpose([[7], [8]]) == [[7, 8]]
    assert matrix.transpose([]) == []


def test_transpose_returns_lists_and_copies():
    m = [[1, 2], [3, 4], [5, 6]]
    t = matrix.transpose(m)
    assert t == [[1, 3, 5], [2, 4, 6]]
    assert all(type(row) is list for row in t)
    t[0][0] = 99
    assert m == [[1, 2], [3, 4], [5, 6]]
    assert matrix.transpose(t) == [[99, 2], [3, 4], [5, 6]]


def test_column_sums_uses_transpose():
    assert ops.column_sums([[1, 10], [2, 20], [3, 30]]) == [6, 60]
    assert ops.column_sums([[5, -5, 1]]) == [5, -5, 1]
    assert "transpose" in inspect.getsource(ops.column_sums)


def test_totals_unchanged():
    t = ops.totals([[2, 0], [1, 1]])
    assert t == {"rows": [2, 2], "columns": [3, 1], "grand": 4}


def test_tests_mention_transpose():
    with open(os.path.join(os.getcwd(), "tests", "test_matrix.py")) as fh:
        assert "transpose" in fh.read()
