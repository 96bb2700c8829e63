def _text(rng):
    if rng.random() < 0.15:
        return str(rng.randint(0, 10**6))
    units = rng.sample("wdhms", rng.randint(1, 3))
    amounts = [rng.choice([str(rng.randint(0, 90)), f"{rng.randint(0, 9)}.{rng.randint(0, 99)}"]) for _ in units]
    return rng.choice(["", " ", ", "]).join(a + rng.choice(["", " "]) + u for a, u in zip(amounts, units))


def trial(module, rng):
    texts = [_text(rng) for _ in range(rng.randint(1, 3))]
    seconds = [module.parse_duration(t) for t in texts]
    n = rng.choice([0, rng.randint(-10**6, 10**6), seconds[0]])
    return [
        texts,
        seconds,
        module.split_duration(abs(n)),
        module.format_duration(n, largest=rng.choice("wdhms"), max_parts=rng.choice([None, 1, 2])),
        module.total_duration(texts),
    ]
