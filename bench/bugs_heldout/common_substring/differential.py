def _text(rng):
    return "".join(rng.choice("abc ") for _ in range(rng.choice([0, 1, rng.randint(0, 12)])))


def trial(module, rng):
    a, b = _text(rng), _text(rng)
    m = module.longest_match(a, b)
    return [
        (m.start_a, m.start_b, m.length),
        module.longest_common_substring(a, b),
        module.shared_blocks(a, b, rng.randint(1, 3)),
        module.similarity(a, b),
    ]
