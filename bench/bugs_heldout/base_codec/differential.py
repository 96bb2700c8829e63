def trial(module, rng):
    out = []
    for _ in range(4):
        base = rng.choice([2, 3, 10, 16, 36, 62, rng.randint(2, 62)])
        n = rng.choice([0, 1, -1, rng.randint(-1000, 1000), rng.randint(-(10**20), 10**20)])
        out.append(module.to_base(n, base))
        digits = module.DIGITS[:base]
        text = rng.choice(["", "-"]) + "".join(rng.choice(digits) for _ in range(rng.randint(1, 12)))
        out.append(module.from_base(text, base))
        out.append(module.convert(text, base, rng.randint(2, 62)))
    codec = module.BaseCodec(4, alphabet="ACGT")
    out.append(codec.encode(rng.randint(0, 300) * rng.choice([0, 1])))
    out.append(codec.decode("".join(rng.choice("ACGT") for _ in range(rng.randint(1, 8)))))
    return out
