def _expr(rng, depth):
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice([str(rng.randint(0, 20)), "x", "y", "1.5", "0"])
    form = rng.random()
    if form < 0.15:
        return f"({_expr(rng, depth - 1)})"
    if form < 0.25:
        return "-" + _expr(rng, depth - 1)
    op = rng.choice(["+", "-", "*", "+", "^"]) if depth == 1 else rng.choice(["+", "-", "*"])
    space = rng.choice(["", " ", "  ", "\t"])
    return f"{_expr(rng, depth - 1)}{space}{op}{space}{_expr(rng, depth - 1)}"


def trial(module, rng):
    text = _expr(rng, 3)
    if rng.random() < 0.1:
        text += rng.choice([")", " (", " $"])
    tokens = [(t.kind, t.text, t.pos) for t in module.tokenize(text)]
    value = module.evaluate(text, x=rng.randint(-3, 3), y=2)
    return [text, tokens, round(value, 6) if isinstance(value, float) else value]
