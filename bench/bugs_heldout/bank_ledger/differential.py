def trial(module, rng):
    ledger = module.Ledger()
    names = ["a", "b", "c"]
    for name in names:
        ledger.open(name, overdraft=rng.choice([0, 0, 100, 1000]))
    log = []
    for _ in range(rng.randint(1, 25)):
        op = rng.choice(["deposit", "withdraw", "transfer", "history"])
        account = rng.choice(names)
        available = ledger.available(account)
        # Amounts stay within what is available, often exactly all of it: the edge of the overdraft.
        amount = rng.choice([available, rng.randint(1, max(1, available))])
        if op == "deposit" or available < 1:
            ledger.deposit(account, rng.randint(1, 2000))
        elif op == "withdraw":
            ledger.withdraw(account, amount)
        elif op == "transfer":
            ledger.transfer(account, rng.choice(names), amount)
        log.append((account, ledger.balance(account), ledger.available(account)))
    if rng.random() < 0.2:  # one refused request ends some trials
        ledger.withdraw("a", ledger.available("a") + rng.randint(1, 10))
    log.append([ledger.history(name) for name in names])
    return log
