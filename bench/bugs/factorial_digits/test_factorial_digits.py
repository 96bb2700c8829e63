from factorial_digits import digit_sum, factorial


def test_factorial():
    assert [factorial(n) for n in range(6)] == [1, 1, 2, 6, 24, 120]


def test_digit_sum_of_factorial():
    assert digit_sum(factorial(10)) == 27
    assert digit_sum(0) == 0
