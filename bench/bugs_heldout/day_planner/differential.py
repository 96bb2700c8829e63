def _clock(rng):
    return f"{rng.randint(6, 19):02d}:{rng.choice([0, 15, 30, 45, rng.randint(0, 59)]):02d}"


def trial(module, rng):
    planner = module.DayPlanner(rng.choice(["08:00", "09:00"]), rng.choice(["12:00", "17:00", "20:00"]))
    for _ in range(rng.randint(0, 7)):
        a, b = sorted([_clock(rng), _clock(rng)])
        if a != b:
            planner.book(a, b)
    return [
        [str(span) for span in planner.busy()],
        planner.free(),
        [planner.first_slot(m) for m in (15, rng.randint(1, 120), rng.randint(60, 600))],
    ]
