def _vector(module, rng, dimension):
    values = [rng.choice([0, 0, 0, rng.randint(-5, 5)]) for _ in range(dimension)]
    if rng.random() < 0.5:
        return module.SparseVector.from_dense(values)
    return module.SparseVector(dimension, {i: v for i, v in enumerate(values) if rng.random() < 0.7})


def trial(module, rng):
    dimension = rng.randint(0, 8)
    a, b = _vector(module, rng, dimension), _vector(module, rng, dimension)
    total = a + b
    log = [a.to_dense(), total.to_dense(), total.nnz(), a.dot(b), a.scale(rng.randint(-2, 2)).to_dense()]
    log.append(round(a.norm(), 9))
    if dimension:
        index = rng.randrange(dimension)
        log.append(b[index])
        b[index] = rng.choice([0, 7])
        log.append((b.nnz(), b.to_dense()))
    return log
