def _nested(rng, depth):
    kind = rng.random()
    if depth <= 0 or kind < 0.35:
        return rng.choice([rng.randint(-9, 9), "s", "word", "", b"by", None, 2.5])
    if kind < 0.45:
        return {"k": _nested(rng, depth - 1)}
    items = [_nested(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return tuple(items) if kind < 0.6 else items


def trial(module, rng):
    data = [_nested(rng, 3) for _ in range(rng.randint(0, 4))]
    tree = {f"k{i}": {"a": i, "b": {"c": _nested(rng, 1)}} if i % 2 else i for i in range(rng.randint(0, 3))}
    return [
        list(module.flatten(data)),
        list(module.flatten(data, depth=rng.randint(0, 2))),
        module.nesting_depth(data),
        module.flatten_dict(tree, sep=rng.choice(".:/")),
    ]
