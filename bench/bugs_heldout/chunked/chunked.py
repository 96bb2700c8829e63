"""Splitting a stream of items into batches: fixed-size chunks, even parts, and batches under a weight limit."""

from itertools import islice

_NO_FILL = object()


def chunked(iterable, size, fill=_NO_FILL):
    """Tuples of ``size`` items; the last one is shorter, or padded with ``fill`` when it is given."""
    if size < 1:
        raise ValueError("size must be at least 1")
    iterator = iter(iterable)
    while True:
        chunk = tuple(islice(iterator, size))
        if not chunk:
            return
        if len(chunk) < size and fill is not _NO_FILL:
            chunk += (fill,) * (size - len(chunk))
        yield chunk


def split_evenly(items, parts):
    """``parts`` consecutive lists whose lengths differ by at most one, longer ones first."""
    base, extra = divmod(len(items), parts)
    start = 0
    for index in range(parts):
        end = start + base + (1 if index < extra else 0)
        yield list(items[start:end])
        start = end


def batched_by_weight(items, limit, weight=len):
    """Lists of consecutive items whose total weight stays within ``limit``; a heavier item goes alone."""
    batch, total = [], 0
    for item in items:
        w = weight(item)
        if batch and total + w > limit:
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += w
    if batch:
        yield batch
