"""A sparse vector of a fixed dimension: only the non-zero entries are stored."""

import math


class SparseVector:
    def __init__(self, dimension, entries=None):
        self.dimension = dimension
        self._data = {}
        for index, value in (entries or {}).items():
            self[index] = value

    @classmethod
    def from_dense(cls, values):
        return cls(len(values), dict(enumerate(values)))

    def _check(self, index):
        if not 0 <= index < self.dimension:
            raise IndexError(f"index {index} out of range for dimension {self.dimension}")

    def __getitem__(self, index):
        self._check(index)
        return self._data.get(index, 0)

    def __setitem__(self, index, value):
        self._check(index)
        if value:
            self._data[index] = value
        else:
            self._data.pop(index, None)

    def nnz(self):
        return len(self._data)

    def to_dense(self):
        return [self[i] for i in range(self.dimension)]

    def dot(self, other):
        if self.dimension != other.dimension:
            raise ValueError("dimensions differ")
        small, large = sorted((self, other), key=SparseVector.nnz)
        return sum(value * large[index] for index, value in small._data.items())

    def __add__(self, other):
        if self.dimension != other.dimension:
            raise ValueError("dimensions differ")
        result = SparseVector(self.dimension, self._data)
        for index, value in other._data.items():
            result[index] = result[index] + value
        return result

    def scale(self, factor):
        return SparseVector(self.dimension, {i: v * factor for i, v in self._data.items()})

    def norm(self):
        return math.sqrt(self.dot(self))
