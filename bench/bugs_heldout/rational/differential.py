def _rational(module, rng):
    return module.Rational(rng.randint(-30, 30), rng.choice([1, -1, 2, rng.randint(1, 40), -rng.randint(1, 40)]))


def trial(module, rng):
    a, b = _rational(module, rng), _rational(module, rng)
    query = rng.choice(["terms", "add", "sub", "mul", "div", "compare", "mixed", "parse", "harmonic"])
    if query == "terms":
        return [(a.num, a.den), str(b), repr(a)]
    if query == "add":
        return repr(a + b)
    if query == "sub":
        return str(a - b)
    if query == "mul":
        return str(a * b)
    if query == "div":
        return str(a / b) if b.num != 0 else None
    if query == "compare":
        return [a == b, a < b, b < a]
    if query == "mixed":
        return str(a + rng.randint(-3, 3))
    if query == "parse":
        text = rng.choice([f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}", f"-{rng.randint(0, 9)}.{rng.randint(0, 999)}"])
        return str(module.Rational.parse(text))
    return str(module.harmonic(rng.randint(0, 12)))
