def _matrix(module, rng, rows, cols):
    return module.Matrix([[rng.randint(-3, 3) for _ in range(cols)] for _ in range(rows)])


def trial(module, rng):
    n = rng.randint(1, 4)
    a = _matrix(module, rng, n, n)
    b = _matrix(module, rng, n, rng.randint(1, 3))
    log = [a.determinant(), a.is_invertible(), (a @ b).rows, (a + a).rows, a.transpose().rows]
    if rng.random() < 0.3:
        log.append(module.Matrix.identity(n).determinant())
    if a.is_invertible():
        inverse = a.inverse()
        log.append([[str(x) for x in row] for row in inverse.rows])
        log.append(a @ inverse == module.Matrix.identity(n))
    return log
