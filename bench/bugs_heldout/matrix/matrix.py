"""Small exact matrices over integers and fractions: arithmetic, determinant and inverse."""

from fractions import Fraction


def _minor(rows, i, j):
    return [row[:j] + row[j + 1 :] for k, row in enumerate(rows) if k != i]


def _determinant(rows):
    """Cofactor expansion along the first row."""
    if not rows:
        return 1
    total = 0
    for j, pivot in enumerate(rows[0]):
        if pivot:
            total += (-1) ** j * pivot * _determinant(_minor(rows, 0, j))
    return total


class Matrix:
    def __init__(self, rows):
        widths = {len(row) for row in rows}
        if len(widths) > 1:
            raise ValueError("rows have different lengths")
        self.rows = [list(row) for row in rows]
        self.shape = (len(self.rows), widths.pop() if widths else 0)

    @classmethod
    def identity(cls, n):
        return cls([[int(i == j) for j in range(n)] for i in range(n)])

    def __eq__(self, other):
        return isinstance(other, Matrix) and self.rows == other.rows

    def __repr__(self):
        return f"Matrix({self.rows})"

    def __add__(self, other):
        if self.shape != other.shape:
            raise ValueError(f"cannot add {self.shape} and {other.shape}")
        return Matrix([[a + b for a, b in zip(r, s)] for r, s in zip(self.rows, other.rows)])

    def __matmul__(self, other):
        if self.shape[1] != other.shape[0]:
            raise ValueError(f"cannot multiply {self.shape} by {other.shape}")
        columns = other.transpose().rows
        return Matrix([[sum(a * b for a, b in zip(row, col)) for col in columns] for row in self.rows])

    def transpose(self):
        return Matrix([list(col) for col in zip(*self.rows)]) if self.rows else Matrix([])

    def determinant(self):
        if self.shape[0] != self.shape[1]:
            raise ValueError("determinant of a non-square matrix")
        return _determinant(self.rows)

    def is_invertible(self):
        return self.shape[0] == self.shape[1] and self.determinant() != 0

    def inverse(self):
        """The exact inverse, as the adjugate over the determinant."""
        det = self.determinant()
        if det == 0:
            raise ZeroDivisionError("matrix is singular")
        n = self.shape[0]
        cofactors = [[(-1) ** (i + j) * _determinant(_minor(self.rows, i, j)) for j in range(n)] for i in range(n)]
        return Matrix([[Fraction(c, det) for c in row] for row in Matrix(cofactors).transpose().rows])
