from flatten import flatten, flatten_dict, nesting_depth, unflatten_dict


def test_flatten_all_levels():
    assert list(flatten([1, [2, [3, [4]]], (5,)])) == [1, 2, 3, 4, 5]


def test_flatten_limited_depth():
    assert list(flatten([1, [2, [3, [4]]]], depth=1)) == [1, 2, [3, [4]]]


def test_strings_are_leaves():
    assert list(flatten(["ab", ["cd", b"ef"]])) == ["ab", "cd", b"ef"]


def test_dicts_are_leaves():
    assert list(flatten([{"a": 1}, [2]])) == [{"a": 1}, 2]


def test_flatten_generators_and_empties():
    assert list(flatten([[], (x for x in [1, 2]), [[]]])) == [1, 2]


def test_nesting_depth():
    assert nesting_depth(3) == 0
    assert nesting_depth([]) == 1
    assert nesting_depth([1, [2, [3]], []]) == 3


def test_flatten_dict_round_trip():
    data = {"db": {"host": "x", "port": 5432}, "debug": True, "extra": {}}
    flat = flatten_dict(data)
    assert flat == {"db.host": "x", "db.port": 5432, "debug": True, "extra": {}}
    assert unflatten_dict(flat) == data
