def _word(rng):
    return "".join(rng.choice("abc") for _ in range(rng.randint(0, 4)))


def trial(module, rng):
    trie = module.Trie(_word(rng) for _ in range(rng.randint(0, 8)))
    log = []
    for _ in range(rng.randint(1, 12)):
        word = _word(rng)
        op = rng.choice(["insert", "remove", "contains", "prefix", "complete"])
        if op == "insert":
            trie.insert(word)
        elif op == "remove":
            log.append(trie.remove(word))
        elif op == "contains":
            log.append(word in trie)
        elif op == "prefix":
            log.append(trie.has_prefix(word))
        else:
            log.append(trie.complete(word[:2], limit=rng.choice([None, 1, 3])))
        log.append(trie.size)
    return log
