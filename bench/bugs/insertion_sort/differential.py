"""insertion_sort on lists of integers (empty, one element, duplicates, negatives, sorted, reversed, large values).

Each call yields the result, the input after the call, and whether the result is the input itself:
the contract is a sorted copy, which leaves the input alone.
"""


def trial(module, rng):
    xs = [rng.randint(-9, 9) for _ in range(rng.choice([0, 1, 2, 3, rng.randint(4, 14)]))]
    shape = rng.random()
    if shape < 0.1:
        xs.sort()
    elif shape < 0.2:
        xs.sort(reverse=True)
    elif shape < 0.3:
        xs = [x * 10**15 + rng.randint(0, 1) for x in xs]
    given = list(xs)
    out = module.insertion_sort(given)
    return [out, given, out is given]
