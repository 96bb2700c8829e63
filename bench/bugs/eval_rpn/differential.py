"""eval_rpn on random expression trees of + - * / over integers and decimals (negative numbers too).

Expressions stay within the contract: well formed, and no division by zero.
"""


def trial(module, rng):
    tokens, _ = _expression(rng, rng.randint(0, 4))
    return module.eval_rpn(" ".join(tokens))


def _expression(rng, depth):
    """The tokens of a random expression and its value."""
    if depth == 0 or rng.random() < 0.25:
        number = rng.choice([rng.randint(-9, 9), rng.randint(0, 10**6), rng.randint(-40, 40) / 4])
        return [str(number)], float(number)
    left, a = _expression(rng, depth - 1)
    right, b = _expression(rng, depth - 1)
    op = rng.choice("+-*/" if b != 0 else "+-*")
    value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[op]
    return [*left, *right, op], value
