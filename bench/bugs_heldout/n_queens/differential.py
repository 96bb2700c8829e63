def trial(module, rng):
    n = rng.randint(0, 6)
    solver = module.QueensSolver(n)
    sols = list(solver.solutions())
    return [
        sols,
        module.count_solutions(rng.randint(0, 5)),
        module.first_solution(rng.randint(0, 7)),
        module.render(sols[0]) if sols else None,
    ]
