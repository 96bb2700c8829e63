from flood_fill import flood_fill, parse, regions, show

PICTURE = """
..##.
.#..#
##.##
....#
"""


def test_fill_open_area():
    grid, painted = flood_fill(parse(PICTURE), 0, 0, "o")
    assert painted == 3
    assert show(grid) == "oo##.\no#..#\n##.##\n....#"


def test_fill_enclosed_pocket():
    grid, painted = flood_fill(parse(PICTURE), 1, 2, "x")
    assert painted == 7
    assert show(grid).splitlines()[3] == "xxxx#"


def test_fill_wall():
    grid, painted = flood_fill(parse(PICTURE), 2, 0, "=")
    assert painted == 3
    assert show(grid).splitlines()[1] == ".=..#"


def test_fill_with_same_colour_changes_nothing():
    grid, painted = flood_fill(parse(PICTURE), 3, 0, ".")
    assert painted == 0
    assert show(grid) == PICTURE.strip()


def test_input_grid_is_not_modified():
    original = parse(PICTURE)
    flood_fill(original, 0, 0, "o")
    assert show(original) == PICTURE.strip()


def test_region_sizes():
    assert regions(parse(PICTURE), ".") == [7, 3, 1]
    assert regions(parse(PICTURE), "#") == [4, 3, 2]
    assert regions(parse(PICTURE), "z") == []


def test_ragged_rows():
    grid, painted = flood_fill([["a", "a"], ["a"], ["a", "b", "a"]], 0, 0, "c")
    assert painted == 4
    assert grid == [["c", "c"], ["c"], ["c", "b", "a"]]
