from nested_depth import depth, parse_nested


def test_parse():
    assert parse_nested("[1,[2,3],[]]") == [1, [2, 3], []]
    assert parse_nested("[ -4 , [ [5] ] ]") == [-4, [[5]]]


def test_depth():
    assert depth(7) == 0
    assert depth([]) == 1
    assert depth(parse_nested("[1,[2,[3]]]")) == 3
