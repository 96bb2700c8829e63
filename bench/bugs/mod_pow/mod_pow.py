def mod_pow(base, exponent, modulus):
    """``base ** exponent % modulus`` by repeated squaring."""
    result = 1 % modulus
    base %= modulus
    while exponent > 0:
        if exponent & 1:
            result = result * base % modulus
        base = base * base % modulus
        exponent >>= 1
    return result
