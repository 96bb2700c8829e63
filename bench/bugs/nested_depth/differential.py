"""parse_nested on bracketed lists of integers written with random spaces; depth of what it parses and of numbers."""


def trial(module, rng):
    value = _nested(rng, rng.randint(0, 4))
    parsed = module.parse_nested(_write(value, rng))
    number = rng.randint(-100, 100)
    return [parsed, module.depth(parsed), module.depth(number)]


def _nested(rng, depth):
    items = []
    for _ in range(rng.randint(0, 3)):
        items.append(_nested(rng, depth - 1) if depth and rng.random() < 0.5 else rng.randint(-50, 50))
    return items


def _write(value, rng):
    space = rng.choice(["", "", " ", "  "])
    if isinstance(value, int):
        return f"{space}{value}{space}"
    return "[" + ",".join(_write(item, rng) for item in value) + "]"
