from ops import column_sums, totals


def test_column_sums():
    assert column_sums([[1, 2], [3, 4]]) == [4, 6]


def test_totals():
    t = totals([[1, 2, 3], [4, 5, 6]])
    assert t == {"rows": [6, 15], "columns": [5, 7, 9], "grand": 21}
