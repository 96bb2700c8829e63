def merge_sorted(a, b):
    """One sorted list from the two sorted lists ``a`` and ``b`` (stable: ties take ``a`` first)."""
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        if b[j] < a[i]:
            out.append(b[j])
            j += 1
        else:
            out.append(a[i])
            i += 1
    return out + a[i:] + b[j:]
