from datetime import date, timedelta


def trial(module, rng):
    start = date(2024, 1, 1) + timedelta(days=rng.randint(-400, 400))
    holidays = frozenset(start + timedelta(days=rng.randint(-20, 40)) for _ in range(rng.randint(0, 4)))
    end = start + timedelta(days=rng.randint(-30, 60))
    days = rng.randint(-15, 25)
    return [
        module.is_business_day(start, holidays),
        module.add_business_days(start, days, holidays).isoformat(),
        module.roll_forward(start, holidays).isoformat(),
        module.business_days_between(start, end, holidays),
        module.month_end_business_day(start.year, start.month, holidays).isoformat(),
    ]
