def trial(module, rng):
    items = module.SortedList(rng.randint(-10, 10) for _ in range(rng.randint(0, 10)))
    log = []
    for _ in range(rng.randint(1, 10)):
        x = rng.randint(-12, 12)
        op = rng.choice(["add", "remove", "contains", "count", "rank", "between", "nearest"])
        if op == "add":
            items.add(x)
        elif op == "remove" and x in list(items):
            items.remove(x)
        elif op == "contains":
            log.append(x in items)
        elif op == "count":
            log.append(items.count(x))
        elif op == "rank":
            log.append(items.rank(x))
        elif op == "between":
            log.append(items.between(x, x + rng.randint(-2, 8)))
        else:
            log.append(items.nearest(x))
        log.append(list(items))
    return log
