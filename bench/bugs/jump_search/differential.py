"""jump_search on sorted lists (duplicates too): with several copies of the target any of their indices is right."""


def trial(module, rng):
    xs = sorted(rng.randint(-20, 20) for _ in range(rng.randint(0, 12)))
    if rng.random() < 0.1:
        xs = [x * 10**12 for x in xs]
    queries = [rng.randint(-25, 25) for _ in range(4)]
    queries += [rng.choice(xs) for _ in range(4)] if xs else []
    queries += [xs[0] - 1, xs[-1] + 1] if xs else []
    return [_answer(xs, target, module.jump_search(list(xs), target)) for target in queries]


def _answer(xs, target, got):
    """-1 for an absent target must be exact; for a present one, whether ``got`` is an index of it."""
    if target not in xs:
        return got
    return type(got) is int and 0 <= got < len(xs) and xs[got] == target
