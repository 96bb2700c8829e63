"""Roman numerals from 1 to 3999, both ways, accepting only the canonical form when reading."""

NUMERALS = [
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
SYMBOLS = {symbol: value for value, symbol in NUMERALS if len(symbol) == 1}


def to_roman(number):
    if not isinstance(number, int) or not 0 < number < 4000:
        raise ValueError(f"cannot write {number!r} in Roman numerals")
    parts = []
    for value, symbol in NUMERALS:
        count, number = divmod(number, value)
        parts.append(symbol * count)
    return "".join(parts)


def _value_of(text):
    total = 0
    for i, ch in enumerate(text):
        value = SYMBOLS[ch]
        if i + 1 < len(text) and SYMBOLS[text[i + 1]] > value:
            total -= value
        else:
            total += value
    return total


def from_roman(text):
    text = text.strip().upper()
    if not text or any(ch not in SYMBOLS for ch in text):
        raise ValueError(f"not a Roman numeral: {text!r}")
    number = _value_of(text)
    if not 0 < number < 4000 or to_roman(number) != text:
        raise ValueError(f"not a canonical Roman numeral: {text!r}")
    return number


def is_roman(text):
    try:
        from_roman(text)
    except ValueError:
        return False
    return True
