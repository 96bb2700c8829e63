"""find_peak on ten non-empty lists per trial: two short ones of any shape (one or two elements, monotone, flat),
then eight of 3 to 40 elements with several ups and downs (random, a mountain, a valley, several mountains,
a random walk with plateaus).

The contract allows any peak, so each call yields whether the returned index is a peak (an in-range
index whose element is no smaller than its neighbours), not the index itself. Several peaks and
valleys matter: a search that keeps a peak only in easy shapes fails on them.
"""

SHAPES = ("random", "rising", "falling", "flat", "mountain", "valley", "mountains", "walk")
BUMPY = ("random", "mountain", "valley", "mountains", "walk")


def trial(module, rng):
    lists = [_shaped(rng, rng.choice(SHAPES), rng.randint(1, 5)) for _ in range(2)]
    lists += [_shaped(rng, rng.choice(BUMPY), rng.randint(3, 40)) for _ in range(8)]
    return [_is_peak(xs, module.find_peak(list(xs))) for xs in lists]


def _shaped(rng, shape, n):
    xs = [rng.randint(-5, 5) for _ in range(n)]
    cut = rng.randint(0, n)
    if shape == "rising":
        xs.sort()
    elif shape == "falling":
        xs.sort(reverse=True)
    elif shape == "flat":
        xs = [xs[0]] * n
    elif shape == "mountain":
        xs = sorted(xs[:cut]) + sorted(xs[cut:], reverse=True)
    elif shape == "valley":
        xs = sorted(xs[:cut], reverse=True) + sorted(xs[cut:])
    elif shape == "mountains":
        xs = []
        while len(xs) < n:
            part = [rng.randint(-5, 5) for _ in range(rng.randint(1, 6))]
            top = rng.randint(0, len(part))
            xs += sorted(part[:top]) + sorted(part[top:], reverse=True)
        xs = xs[:n]
    elif shape == "walk":
        xs = [0]
        while len(xs) < n:
            xs.append(xs[-1] + rng.choice([-1, 0, 1]))
    return xs


def _is_peak(xs, i):
    if type(i) is not int or not 0 <= i < len(xs):
        return False
    return (i == 0 or xs[i] >= xs[i - 1]) and (i == len(xs) - 1 or xs[i] >= xs[i + 1])
