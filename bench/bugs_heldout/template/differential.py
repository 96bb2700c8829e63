PIECES = ["{{v}}", "{{&v}}", "{{w.x}}", " ", "<", "&", "a", "{{.}}", "{{missing}}", "{{n}}"]


def _body(rng, depth):
    parts = []
    for _ in range(rng.randint(0, 4)):
        if depth and rng.random() < 0.25:
            name, sigil = rng.choice(["items", "flag", "n", "empty"]), rng.choice("#^")
            parts.append(f"{{{{{sigil}{name}}}}}{_body(rng, depth - 1)}{{{{/{name}}}}}")
        else:
            parts.append(rng.choice(PIECES))
    return "".join(parts)


def trial(module, rng):
    values = ["<b>", "a & b", 'say "hi"', 0, "", "x<y<z", None, 3.5, False]
    context = {
        "v": rng.choice(values),
        "w": {"x": rng.choice(values)},
        "n": rng.choice([0, 1, 2]),
        "flag": rng.choice([True, False]),
        "empty": [],
        "items": [{"v": rng.choice(values)} for _ in range(rng.randint(0, 3))],
    }
    return module.render(_body(rng, 2), context)
