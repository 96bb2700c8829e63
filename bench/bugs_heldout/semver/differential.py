def _version(rng):
    text = ".".join(str(rng.choice([0, 0, 1, 2, 10, 11])) for _ in range(3))
    if rng.random() < 0.6:
        ids = [rng.choice(["alpha", "beta", "rc", "1", "2", "11", "x-y"]) for _ in range(rng.randint(1, 3))]
        text += "-" + ".".join(ids)
    if rng.random() < 0.2:
        text += "+b" + str(rng.randint(0, 9))
    return text


def trial(module, rng):
    versions = [module.Version.parse(_version(rng)) for _ in range(rng.randint(1, 6))]
    a, b = versions[0], versions[-1]
    return [
        [str(x) for x in sorted(versions)],
        (a < b, a == b, a > b),
        str(a.bump(rng.choice(["major", "minor", "patch"]))),
        module.satisfies_caret(a, b),
    ]
