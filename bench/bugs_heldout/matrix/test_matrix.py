from fractions import Fraction

import pytest

from matrix import Matrix


def test_add_and_shape_mismatch():
    a = Matrix([[1, 2], [3, 4]])
    assert a + a == Matrix([[2, 4], [6, 8]])
    with pytest.raises(ValueError, match="cannot add"):
        a + Matrix([[1, 2]])


def test_matmul():
    a = Matrix([[1, 2, 3]])
    b = Matrix([[1], [0], [2]])
    assert a @ b == Matrix([[7]])
    assert (b @ a).shape == (3, 3)


def test_determinant_small():
    assert Matrix([[5]]).determinant() == 5
    assert Matrix([[1, 2], [3, 4]]).determinant() == -2


def test_determinant_three_by_three():
    m = Matrix([[2, 0, 1], [1, 3, 2], [1, 1, 2]])
    assert m.determinant() == 6


def test_singular_matrix():
    m = Matrix([[1, 2], [2, 4]])
    assert not m.is_invertible()
    with pytest.raises(ZeroDivisionError):
        m.inverse()


def test_inverse_is_exact():
    m = Matrix([[4, 7], [2, 6]])
    inv = m.inverse()
    assert inv.rows[0][0] == Fraction(3, 5)
    assert m @ inv == Matrix.identity(2)


def test_ragged_rows_rejected():
    with pytest.raises(ValueError, match="different lengths"):
        Matrix([[1, 2], [3]])
