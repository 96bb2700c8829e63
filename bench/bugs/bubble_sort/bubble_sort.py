def bubble_sort(xs):
    """A sorted copy of ``xs``: repeatedly swap neighbours that are out of order."""
    out = list(xs)
    n = len(out)
    for end in range(n - 1, 0, -1):
        for i in range(end):
            if out[i] > out[i + 1]:
                out[i], out[i + 1] = out[i + 1], out[i]
    return out
