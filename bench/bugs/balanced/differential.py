"""balanced on text with brackets of three kinds among other characters: balanced, then often slightly broken."""

OPEN, CLOSE = "([{", ")]}"


def trial(module, rng):
    text = _balanced(rng, rng.randint(0, 4))
    change = rng.random()
    if text and change < 0.5:  # one character swapped for another bracket, or removed
        i = rng.randrange(len(text))
        text = text[:i] + rng.choice(["", *OPEN, *CLOSE]) + text[i + 1 :]
    elif change < 0.6:
        text = "".join(rng.choice("()[]{}x") for _ in range(rng.randint(0, 8)))
    return bool(module.balanced(text))


def _balanced(rng, depth):
    parts = []
    for _ in range(rng.randint(0, 3)):
        if depth and rng.random() < 0.6:
            k = rng.randrange(3)
            parts.append(OPEN[k] + _balanced(rng, depth - 1) + CLOSE[k])
        else:
            parts.append(rng.choice(["x", "1 ", ", ", ""]))
    return "".join(parts)
