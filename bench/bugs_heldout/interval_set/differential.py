def _span(rng):
    start = rng.randint(-10, 20)
    return (start, start + rng.randint(-1, 6))


def trial(module, rng):
    spans = module.IntervalSet([_span(rng) for _ in range(rng.randint(0, 4))])
    log = [spans.intervals()]
    for _ in range(rng.randint(0, 8)):
        op = rng.choice(["add", "add", "remove", "union", "probe"])
        if op == "add":
            spans.add(*_span(rng))
        elif op == "remove":
            spans.remove(*_span(rng))
        elif op == "union":
            spans = spans | module.IntervalSet([_span(rng)])
        else:
            log.append([x in spans for x in range(-10, 26, 3)])
        log.append((spans.intervals(), len(spans), spans.total_length()))
    lo = rng.randint(-12, 10)
    log.append(list(spans.gaps(lo, lo + rng.randint(0, 20))))
    return log
