def quick_sort(xs):
    """A sorted copy of ``xs``: partition around the first element, sort each side."""
    if len(xs) <= 1:
        return list(xs)
    pivot, rest = xs[0], xs[1:]
    smaller = [x for x in rest if x < pivot]
    larger = [x for x in rest if x >= pivot]
    return quick_sort(smaller) + [pivot] + quick_sort(larger)
