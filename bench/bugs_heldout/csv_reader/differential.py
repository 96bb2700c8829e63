def _field(rng):
    plain = rng.choice(["", "x", "42", "a b", "Ada"])
    form = rng.random()
    if form < 0.6:
        return plain
    inner = rng.choice(["", "x", 'say ""hi""', "a,b", "two\nlines", "semi;colon"])
    return f'"{inner}"'


def trial(module, rng):
    width = rng.randint(1, 4)
    header = ",".join(f"c{i}" for i in range(width))
    lines = [header]
    for _ in range(rng.randint(0, 5)):
        lines.append(",".join(_field(rng) for _ in range(rng.randint(1, width))))
    text = "\n".join(lines) + rng.choice(["", "\n", "\r\n"])
    return [module.parse_rows(text), module.read_records(text), module.column(text, "c0")]
