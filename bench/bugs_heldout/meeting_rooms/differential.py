def trial(module, rng):
    meetings = []
    for k in range(rng.randint(0, 9)):
        start = rng.randrange(0, 20)
        meetings.append(module.Meeting(start, start + rng.choice([1, 2, 3, rng.randint(1, 8)]), f"m{k}"))
    rng.shuffle(meetings)
    return [
        sorted(module.allocate(meetings).items()),
        module.rooms_needed(meetings),
        sorted(module.timetable(meetings).items()),
        module.busiest_moment(meetings),
    ]
