def is_prime(n):
    """Whether ``n`` is a prime number, by trial division up to its square root."""
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True
