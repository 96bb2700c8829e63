from itertools import pairwise

import pytest
from grid_route import GridMap

MAZE = """
S.#.....
.##.###.
....#...
.##...#E
"""


def test_distance_through_maze():
    assert GridMap(MAZE).distance() == 12


def test_route_endpoints_and_steps():
    path = GridMap(MAZE).route()
    assert path[0] == (0, 0)
    assert path[-1] == (3, 7)
    for (r1, c1), (r2, c2) in pairwise(path):
        assert abs(r1 - r2) + abs(c1 - c2) == 1


def test_open_field_uses_manhattan_distance():
    field = GridMap("S...\n....\n...E")
    assert field.distance() == 5


def test_walled_off_exit():
    assert GridMap("S#E").route() is None
    assert GridMap("S#E").distance() == -1


def test_start_is_goal():
    grid = GridMap("...\n.S.\n..E")
    assert grid.route(start=(1, 1), goal=(1, 1)) == [(1, 1)]


def test_explicit_cells_and_first_route():
    grid = GridMap("....\n.##.\n....")
    assert grid.route(start=(0, 0), goal=(2, 3)) == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]


def test_corner_cutting_not_allowed():
    assert GridMap("S#\n#E").distance() == -1


def test_missing_marker():
    with pytest.raises(ValueError, match="no 'E'"):
        GridMap("S..").route()
