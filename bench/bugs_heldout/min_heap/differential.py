def trial(module, rng):
    queue = module.PriorityQueue()
    queued = []
    log = []
    for step in range(rng.randint(0, 30)):
        op = rng.random()
        if op < 0.5 or not queued:
            item = f"t{step}"
            queue.push(item, rng.randint(-5, 5))
            queued.append(item)
        elif op < 0.75:
            item, priority = queue.pop()
            queued.remove(item)
            log.append((item, priority))
        elif op < 0.9:
            queue.change_priority(rng.choice(queued), rng.randint(-8, 8))
        else:
            log.append(queue.peek())
    while len(queue):
        log.append(queue.pop())
    return log
