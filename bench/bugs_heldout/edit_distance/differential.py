def _word(rng):
    return "".join(rng.choice("aab") for _ in range(rng.choice([0, 1, rng.randint(0, 7)])))


def trial(module, rng):
    a, b = _word(rng), _word(rng)
    vocabulary = [_word(rng) for _ in range(rng.randint(0, 4))]
    return [
        module.distance(a, b),
        module.edits(a, b),
        module.closest(a, vocabulary, max_distance=rng.randint(0, 3)),
    ]
