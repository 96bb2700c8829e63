def trial(module, rng):
    lists = [[rng.choice([0, 1, 2, 5, -3, None, ""]) for _ in range(rng.randint(0, 4))] for _ in range(rng.randint(0, 4))]
    numbers = [sorted(rng.randint(-5, 5) for _ in range(rng.randint(0, 5))) for _ in range(rng.randint(0, 3))]
    words = [sorted(rng.choice(["a", "bb", "c", "ddd", ""]) for _ in range(rng.randint(0, 3))) for _ in range(2)]
    return [
        list(module.roundrobin(*lists)),
        list(module.interleave(*lists)),
        list(module.intersperse(lists[0] if lists else [], rng.choice([0, "-", None]))),
        list(module.merge_sorted(*numbers)),
        list(module.merge_sorted(*(sorted(w, key=len) for w in words), key=len)),
    ]
