DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def to_base(n, base):
    """The digits of the non-negative integer ``n`` written in ``base`` (2 to 36)."""
    if n == 0:
        return "0"
    digits = []
    while n > 0:
        digits.append(DIGITS[n % base])
        n //= base
    return "".join(reversed(digits))
