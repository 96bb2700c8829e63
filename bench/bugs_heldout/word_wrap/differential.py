def trial(module, rng):
    words = ["a", "to", "wrap", "lorem", "ipsum", "x" * rng.randint(5, 14), "dolor"]
    seps = [" ", " ", " ", "  ", "\n", "\t", " \n "]
    text = "".join(rng.choice(words) + rng.choice(seps) for _ in range(rng.randint(0, 8)))
    if rng.random() < 0.3:
        text = rng.choice(seps) + text
    width = rng.randint(1, 16)
    return [
        wrapped := module.wrap(text, width),
        module.fill(text, width),
        module.justify(text, width) if all(len(line) <= width for line in wrapped) else None,
        module.shorten(text, rng.randint(3, 25)),
    ]
