def trial(module, rng):
    text = "".join(rng.choice("aab ") * rng.choice([1, 1, 2, 5, 13]) for _ in range(rng.randint(0, 6)))
    encoded = module.encode(text, max_run=rng.choice([None, None, 2, 9]))
    log = [list(module.runs(text)), encoded, module.decode(encoded), round(module.compression_ratio(text), 9)]
    if rng.random() < 0.2:
        log.append(module.decode(rng.choice(["3", "a0b", "10", "2a3"])))
    return log
