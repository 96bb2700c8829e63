def _day(module, rng):
    year = rng.choice([1, 4, 100, 400, 1600, 1900, 2000, 2100, rng.randint(1, 3000)])
    month = rng.randint(1, 12)
    return module.Day(year, month, rng.randint(1, module.days_in_month(year, month)))


def trial(module, rng):
    a, b = _day(module, rng), _day(module, rng)
    year = rng.choice([1900, 2000, 2024, 2100, rng.randint(1, 4000)])
    return [
        module.is_leap(year),
        module.days_in_month(year, 2),
        a.day_of_year(),
        a.ordinal(),
        b.weekday(),
        module.days_between(a, b),
        module.days_between(str(b), str(a)),
    ]
