from last_index import last_index


def test_last_of_many():
    assert last_index([4, 1, 4, 2, 4, 3], 4) == 4


def test_single():
    assert last_index([7, 8, 9], 8) == 1


def test_absent():
    assert last_index([1, 2, 3], 5) == -1
    assert last_index([], 5) == -1
