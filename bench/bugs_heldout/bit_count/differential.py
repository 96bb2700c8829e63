def trial(module, rng):
    values = [rng.choice([0, 1, 2, 3, rng.randint(0, 255), rng.randint(0, 2**70)]) for _ in range(3)]
    out = [module.popcount(v) for v in values]
    out.append(module.parity(values[0]))
    out.append(module.hamming_distance(values[1], values[2]))
    out.append(list(module.set_bits(values[0])))
    out.append(module.lowest_set_bit(values[1]))
    out.append(module.next_same_popcount(values[2] or 1))
    width = rng.randint(0, 6)
    out.append(list(module.subsets_of_size(width, rng.randint(0, width))))
    return out
