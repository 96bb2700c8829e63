def selection_sort(xs):
    """A sorted copy of ``xs``: swap the smallest remaining element into place, one position at a time."""
    out = list(xs)
    for i in range(len(out)):
        best = i
        for j in range(i + 1, len(out)):
            if out[j] < out[best]:
                best = j
        out[i], out[best] = out[best], out[i]
    return out
