VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman_to_int(numeral):
    """The value of a Roman numeral such as 'MCMXCIV'."""
    total = 0
    for i, ch in enumerate(numeral):
        value = VALUES[ch]
        if i + 1 < len(numeral) and value < VALUES[numeral[i + 1]]:
            total -= value
        else:
            total += value
    return total
