"""parse_int on text with optional spaces or tabs, an optional sign, digits (leading zeros, many digits), then junk."""


def trial(module, rng):
    digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([0, 1, rng.randint(1, 25)])))
    text = (
        rng.choice(["", " ", "  ", "\t"])
        + rng.choice(["", "", "+", "-"])
        + digits
        + rng.choice(["", "", "abc", " 12", "-3", "x9", ".5", " "])
    )
    return module.parse_int(text)
