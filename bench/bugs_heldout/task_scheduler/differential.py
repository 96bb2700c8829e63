def trial(module, rng):
    n = rng.randint(0, 7)
    names = [f"t{i}" for i in range(n)]
    rng.shuffle(names)
    tasks = []
    for i, name in enumerate(names):
        # depend only on earlier names: no cycles, so that every call succeeds
        deps = tuple(rng.sample(names[:i], rng.randint(0, min(i, 3))))
        tasks.append(module.Task(name, rng.randint(0, 6), deps))
    rng.shuffle(tasks)
    schedule = module.earliest_schedule(tasks)
    return [
        module.topological_order(tasks),
        {name: list(times) for name, times in sorted(schedule.items())},
        module.makespan(tasks),
        module.critical_path(tasks),
    ]
