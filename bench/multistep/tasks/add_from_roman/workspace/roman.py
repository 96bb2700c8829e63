"""Roman numeral conversion."""

NUMERALS = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]


def to_roman(number):
    """to_roman(1994) -> 'MCMXCIV'"""
    if not 0 < number < 4000:
        raise ValueError("number out of range (1-3999)")
    parts = []
    for value, letters in NUMERALS:
        count, number = divmod(number, value)
        parts.append(letters * count)
    return "".join(parts)
