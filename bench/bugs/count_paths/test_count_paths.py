from count_paths import count_paths


def test_open_grid():
    assert count_paths(["...", "...", "..."]) == 6


def test_with_walls():
    assert count_paths(["...", ".#.", "..."]) == 2
    assert count_paths([".#", "#."]) == 0


def test_single_cell():
    assert count_paths(["."]) == 1
