from climb_stairs import climb_stairs


def test_one_or_two():
    assert [climb_stairs(n) for n in range(1, 7)] == [1, 2, 3, 5, 8, 13]


def test_other_steps():
    assert climb_stairs(4, (1, 3)) == 3
    assert climb_stairs(0) == 1
