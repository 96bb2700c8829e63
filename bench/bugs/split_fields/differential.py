"""split_fields on lines of plain and double-quoted fields (holding separators), empty fields, other separators."""


def trial(module, rng):
    sep = rng.choice([",", ",", ";", "\t"])
    fields = []
    for _ in range(rng.randint(1, 5)):
        text = "".join(rng.choice(["a", "b", " ", "1"]) for _ in range(rng.choice([0, rng.randint(1, 4)])))
        if rng.random() < 0.3:
            inner = text + sep + "".join(rng.choice(["c", sep, " "]) for _ in range(rng.randint(0, 3)))
            text = '"' + inner + '"'
        fields.append(text)
    line = sep.join(fields)
    if sep == ",":
        return module.split_fields(line)
    return module.split_fields(line, sep=sep)
