import pytest
from n_queens import QueensSolver, count_solutions, first_solution, render


def test_known_counts():
    assert [count_solutions(n) for n in range(1, 9)] == [1, 0, 0, 2, 10, 4, 40, 92]


def test_empty_board_has_one_solution():
    assert count_solutions(0) == 1


def test_four_queens_solutions():
    assert list(QueensSolver(4).solutions()) == [(1, 3, 0, 2), (2, 0, 3, 1)]


def test_first_solution():
    assert first_solution(6) == (1, 3, 5, 0, 2, 4)
    assert first_solution(3) is None


def test_solutions_do_not_attack():
    for sol in QueensSolver(6).solutions():
        for r1 in range(6):
            for r2 in range(r1 + 1, 6):
                assert sol[r1] != sol[r2]
                assert abs(sol[r1] - sol[r2]) != r2 - r1


def test_render():
    assert render((1, 3, 0, 2)) == ".Q..\n...Q\nQ...\n..Q."


def test_negative_size():
    with pytest.raises(ValueError, match="non-negative"):
        QueensSolver(-1)
