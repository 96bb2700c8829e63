def trial(module, rng):
    top = rng.choice([10, 64, 130, 400])
    a, b = module.BitSet(), module.BitSet([rng.randrange(top) for _ in range(rng.randint(0, 8))])
    out = []
    for _ in range(rng.randint(0, 20)):
        n = rng.randrange(top)
        op = rng.choice(["add", "add", "discard", "contains"])
        if op == "add":
            a.add(n)
        elif op == "discard":
            a.discard(n)
        else:
            out.append(n in a)
    out += [list(a), len(a), list(a | b), list(a & b), list(a - b), a == b, repr(b)]
    return out
