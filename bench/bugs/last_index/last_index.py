def last_index(xs, target):
    """The index of the last occurrence of ``target`` in ``xs``, or -1 when it does not occur."""
    found = -1
    for i, x in enumerate(xs):
        if x == target:
            found = i
    return found
