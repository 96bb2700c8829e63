def pair_with_sum(xs, total):
    """Indices ``(i, j)``, ``i < j``, of two entries of the sorted list ``xs`` adding up to ``total``, or None."""
    i, j = 0, len(xs) - 1
    while i < j:
        s = xs[i] + xs[j]
        if s == total:
            return (i, j)
        if s < total:
            i += 1
        else:
            j -= 1
    return None
