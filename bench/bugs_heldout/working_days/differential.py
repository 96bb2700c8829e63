from datetime import date, timedelta


def trial(module, rng):
    base = date(2024, 1, 1) + timedelta(days=rng.randint(0, 800))
    holidays = [base + timedelta(days=rng.randint(-20, 30)) for _ in range(rng.randint(0, 12))]
    weekend = rng.choice([(5, 6), (5, 6), (4, 5), (6,), ()])
    cal = module.BusinessCalendar(holidays, weekend)
    other = base + timedelta(days=rng.randint(-30, 30))
    count = rng.choice([0, 1, -1, rng.randint(-25, 25)])
    return [
        cal.is_business_day(other),
        cal.roll_forward(other).isoformat() if len(weekend) < 7 else None,
        cal.add(base, count).isoformat(),
        cal.between(base, other),
        module.due_date(other, abs(count), holidays).isoformat(),
    ]
