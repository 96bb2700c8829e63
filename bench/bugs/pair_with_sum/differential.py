"""pair_with_sum on sorted lists (duplicates, negatives), for totals that some pair makes and totals none makes.

Several pairs may add up to the total and any is right, so each call yields None exactly when no pair
exists, else whether the answer is a tuple ``(i, j)``, ``i < j``, of two entries adding up to it.
"""


def trial(module, rng):
    xs = sorted(rng.randint(-10, 10) for _ in range(rng.randint(0, 10)))
    totals = [rng.randint(-22, 22) for _ in range(3)]
    if len(xs) >= 2:
        i, j = sorted(rng.sample(range(len(xs)), 2))
        totals.append(xs[i] + xs[j])
    return [_answer(xs, total, module.pair_with_sum(list(xs), total)) for total in totals]


def _answer(xs, total, got):
    exists = any(xs[i] + xs[j] == total for i in range(len(xs)) for j in range(i + 1, len(xs)))
    if not exists:
        return got
    if type(got) is not tuple or len(got) != 2 or not all(type(k) is int for k in got):
        return False
    i, j = got
    return 0 <= i < j < len(xs) and xs[i] + xs[j] == total
