import pytest

from sparse_vector import SparseVector


def test_missing_entries_read_as_zero():
    v = SparseVector(5, {1: 3})
    assert v[1] == 3
    assert v[0] == 0
    assert v.nnz() == 1


def test_to_dense_round_trip():
    values = [0, 2, 0, 0, -1]
    assert SparseVector.from_dense(values).to_dense() == values


def test_setting_zero_removes_the_entry():
    v = SparseVector(3, {0: 4})
    v[0] = 0
    assert v.nnz() == 0


def test_dot_and_norm():
    a = SparseVector.from_dense([3, 0, 4])
    b = SparseVector.from_dense([1, 5, 0])
    assert a.dot(b) == 3
    assert a.norm() == 5.0


def test_add_cancels_entries():
    a = SparseVector.from_dense([1, 2, 0])
    b = SparseVector.from_dense([-1, 1, 3])
    total = a + b
    assert total.to_dense() == [0, 3, 3]
    assert total.nnz() == 2


def test_scale_by_zero_is_empty():
    assert SparseVector.from_dense([1, 2]).scale(0).nnz() == 0


def test_bounds_and_dimensions():
    v = SparseVector(2)
    with pytest.raises(IndexError):
        v[2]
    with pytest.raises(ValueError, match="dimensions"):
        v.dot(SparseVector(3))
