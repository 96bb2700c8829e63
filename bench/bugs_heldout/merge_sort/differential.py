def trial(module, rng):
    n = rng.choice([0, 1, 2, rng.randint(0, 40)])
    values = [rng.randint(-5, 5) if rng.random() < 0.5 else rng.randint(-(10**6), 10**6) for _ in range(n)]
    words = ["".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) for _ in range(rng.randint(0, 12))]
    return [
        module.merge_sort(values),
        module.merge_sort(words, key=len),
        module.merge_sort(values, key=abs),
        module.count_inversions(values),
        module.is_sorted(values),
        module.is_sorted(sorted(values)),
    ]
