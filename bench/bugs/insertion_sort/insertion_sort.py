def insertion_sort(xs):
    """A sorted copy of ``xs``: each element is moved left past the larger ones before it."""
    out = list(xs)
    for i in range(1, len(out)):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    return out
