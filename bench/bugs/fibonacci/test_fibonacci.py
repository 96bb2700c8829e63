from fibonacci import fibonacci


def test_first_numbers():
    assert [fibonacci(n) for n in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def test_larger():
    assert fibonacci(50) == 12586269025
