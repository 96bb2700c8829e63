"""roman_to_int on the standard numerals of 1 to 3999 (subtractive pairs IV, IX, XL, XC, CD, CM among them)."""

SYMBOLS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]


def trial(module, rng):
    numbers = [rng.randint(1, 20), rng.randint(1, 3999)]
    return [module.roman_to_int(_numeral(n)) for n in numbers]


def _numeral(n):
    out = []
    for value, symbol in SYMBOLS:
        count, n = divmod(n, value)
        out.append(symbol * count)
    return "".join(out)
