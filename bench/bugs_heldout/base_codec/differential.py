def trial(module, rng):
    out = []
    for _ in range(5):
        base = rng.choice([2, 3, 10, 16, 36, 62, rng.randint(2, 62)])
        n = rng.choice([0, 1, -1, rng.randint(-1000, 1000), rng.randint(-(10**20), 10**20)])
        text = module.to_base(n, base)
        out.append(text)
        out.append(module.from_base(text, base))
        out.append(module.convert(text, base, rng.randint(2, 62)))
    codec = module.BaseCodec(4, alphabet="ACGT")
    m = rng.randint(0, 300) * rng.choice([0, 1])
    out.append(codec.encode(m))
    out.append(codec.decode(codec.encode(m)))
    return out
