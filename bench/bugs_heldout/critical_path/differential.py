def trial(module, rng):
    names = [f"t{i}" for i in range(rng.randint(0, 8))]
    tasks = []
    for i, name in enumerate(names):
        before = tuple(rng.sample(names[:i], rng.randint(0, min(i, 3))))
        tasks.append(module.Task(name, rng.choice([0, 1, rng.randint(1, 10)]), before))
    rng.shuffle(tasks)
    project = module.Project(tasks)
    return [
        project.order(),
        sorted(project.earliest().items()),
        project.length(),
        sorted(project.slack().items()),
        project.critical_tasks(),
    ]
