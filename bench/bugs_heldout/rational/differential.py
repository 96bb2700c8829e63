def _rational(module, rng):
    return module.Rational(rng.randint(-30, 30), rng.choice([1, -1, 2, rng.randint(1, 40), -rng.randint(1, 40)]))


def trial(module, rng):
    a, b = _rational(module, rng), _rational(module, rng)
    out = [(a.num, a.den), str(b), repr(a + b), str(a - b), str(a * b), a == b, a < b, str(a + rng.randint(-3, 3))]
    if b.num != 0:
        out.append(str(a / b))
    text = rng.choice([f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}", f"-{rng.randint(0, 9)}.{rng.randint(0, 999)}"])
    out.append(str(module.Rational.parse(text)))
    out.append(str(module.harmonic(rng.randint(0, 12))))
    return out
