from datetime import date, timedelta


def trial(module, rng):
    start = date(2020, 1, 1) + timedelta(days=rng.randint(0, 2000))
    if rng.random() < 0.3:
        start = module.end_of_month(start)
    other = start + timedelta(days=rng.randint(-400, 400))
    months = rng.randint(-30, 30)
    return [
        module.add_months(start, months).isoformat(),
        module.months_between(start, other),
        [d.isoformat() for d in module.monthly(start, rng.randint(0, 5), every=rng.randint(1, 4))],
        [d.isoformat() for d in module.billing_dates(start, max(start, other))],
        module.end_of_month(other).isoformat(),
        module.quarter_of(other),
    ]
