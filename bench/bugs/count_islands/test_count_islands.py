from count_islands import count_islands


def test_three_islands():
    grid = ["##..#", "#...#", "..#..", "....."]
    assert count_islands(grid) == 3


def test_island_on_the_last_row_and_column():
    assert count_islands(["...", "..#", ".##"]) == 1
    assert count_islands(["#.#", "...", "#.#"]) == 4


def test_empty():
    assert count_islands([]) == 0
    assert count_islands(["..."]) == 0
