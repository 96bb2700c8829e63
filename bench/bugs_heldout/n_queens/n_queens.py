"""The n-queens puzzle by backtracking: count the solutions or list them."""


class QueensSolver:
    def __init__(self, n):
        if n < 0:
            raise ValueError("board size must be non-negative")
        self.n = n
        self._cols = set()
        self._diagonals = set()
        self._anti_diagonals = set()
        self._placed = []

    def _free(self, row, col):
        return not (col in self._cols or row - col in self._diagonals or row + col in self._anti_diagonals)

    def _place(self, row, col):
        self._cols.add(col)
        self._diagonals.add(row - col)
        self._anti_diagonals.add(row + col)
        self._placed.append(col)

    def _remove(self, row, col):
        self._cols.discard(col)
        self._diagonals.discard(row - col)
        self._anti_diagonals.discard(row + col)
        self._placed.pop()

    def solutions(self, row=0):
        """Yield each solution as a tuple: the queen's column in every row."""
        if row == self.n:
            yield tuple(self._placed)
            return
        for col in range(self.n):
            if self._free(row, col):
                self._place(row, col)
                yield from self.solutions(row + 1)
                self._remove(row, col)


def count_solutions(n):
    return sum(1 for _ in QueensSolver(n).solutions())


def first_solution(n):
    return next(QueensSolver(n).solutions(), None)


def render(solution):
    n = len(solution)
    return "\n".join("." * col + "Q" + "." * (n - col - 1) for col in solution)
