def trial(module, rng):
    inventory = module.Inventory()
    skus = ["a", "b", "c", "d"]
    held = set()  # orders with a reservation: ship() of any other order raises KeyError
    log = []
    for _ in range(rng.randint(0, 20)):
        op = rng.choice(["receive", "reserve", "release", "ship", "look"])
        order = rng.randint(1, 4)
        if op == "receive":
            inventory.receive(rng.choice(skus), rng.randint(1, 6))
        elif op == "reserve":
            # only what is available: an OutOfStock would end the trial
            wanted = {sku: rng.randint(1, 3) for sku in rng.sample(skus, rng.randint(1, 2))}
            if all(q <= inventory.available(s) for s, q in wanted.items()):
                inventory.reserve(order, wanted)
                held.add(order)
        elif op == "release":
            log.append(inventory.release(order))
            held.discard(order)
        elif op == "ship" and order in held:
            log.append(inventory.ship(order))
            held.discard(order)
        sku = rng.choice(skus)
        log.append((sku, inventory.available(sku), inventory.reserved_fraction(sku)))
    return log
