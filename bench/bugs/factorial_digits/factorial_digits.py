def factorial(n):
    """``n!`` for a non-negative integer, recursively."""
    return 1 if n <= 1 else n * factorial(n - 1)


def digit_sum(n):
    """The sum of the decimal digits of the non-negative integer ``n``."""
    total = 0
    while n:
        n, digit = divmod(n, 10)
        total += digit
    return total
