from matrix import identity, row_sums, scale, shape, transpose


def test_shape():
    assert shape([[1, 2, 3], [4, 5, 6]]) == (2, 3)
    assert shape([]) == (0, 0)


def test_row_sums():
    assert row_sums([[1, 2], [3, 4]]) == [3, 7]


def test_scale_and_identity():
    assert scale(identity(2), 3) == [[3, 0], [0, 3]]


def test_transpose():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]
    assert transpose([]) == []
