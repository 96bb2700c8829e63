"""Flattening nested data: sequences of sequences, and dictionaries of dictionaries."""

from collections.abc import Iterable, Mapping


def flatten(items, depth=-1):
    """Yield the leaves of nested iterables, descending at most ``depth`` levels (-1: all the way).

    Strings and bytes are leaves, not sequences of characters; so are mappings.
    """
    for item in items:
        if isinstance(item, Iterable) and not isinstance(item, (str, bytes, Mapping)) and depth != 0:
            yield from flatten(item, depth - 1)
        else:
            yield item


def nesting_depth(value):
    """0 for a leaf, 1 for a flat list, and so on."""
    if isinstance(value, (list, tuple)):
        return 1 + max((nesting_depth(v) for v in value), default=0)
    return 0


def flatten_dict(data, sep=".", prefix=""):
    """{"a": {"b": 1}} -> {"a.b": 1}; an empty nested dict is kept as a value."""
    flat = {}
    for key, value in data.items():
        path = f"{prefix}{sep}{key}" if prefix else str(key)
        if isinstance(value, Mapping) and value:
            flat.update(flatten_dict(value, sep, path))
        else:
            flat[path] = value
    return flat


def unflatten_dict(flat, sep="."):
    nested = {}
    for path, value in flat.items():
        *parents, leaf = path.split(sep)
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested
