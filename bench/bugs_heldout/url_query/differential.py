PIECES = ["a", "b", "x y", "é", "=", "&", "%", "%2", "%41", "+", "", "?", "/", ";"]


def _text(rng):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))


def trial(module, rng):
    raw = "&".join(_text(rng) for _ in range(rng.randint(0, 4)))
    params = {rng.choice(["k", "name", "x y", "é"]): [_text(rng) for _ in range(rng.randint(1, 2))] for _ in range(2)}
    built = module.build_query(params)
    return [
        module.parse_query(raw),
        module.get_one(raw, "a", "-"),
        built,
        module.parse_query(built),
        module.unquote(_text(rng)),
    ]
