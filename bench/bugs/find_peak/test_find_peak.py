from find_peak import find_peak


def is_peak(xs, i):
    left = xs[i - 1] if i > 0 else float("-inf")
    right = xs[i + 1] if i + 1 < len(xs) else float("-inf")
    return xs[i] >= left and xs[i] >= right


def test_rising_then_falling():
    xs = [1, 3, 5, 7, 6, 2]
    assert find_peak(xs) == 3


def test_rising():
    xs = [1, 2, 3, 4, 5]
    assert find_peak(xs) == 4


def test_any_peak():
    for xs in ([5, 1, 4, 2, 8, 3], [2, 1], [9], [1, 2, 1, 2, 1]):
        assert is_peak(xs, find_peak(xs))
