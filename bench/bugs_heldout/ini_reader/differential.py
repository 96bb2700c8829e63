def _value(rng):
    return rng.choice(["1", "0", "yes", "off", "text", "a=b", "x = y = z", "", "  spaced  ", "42", "http://h/?q=1"])


def trial(module, rng):
    lines = []
    names = ["DEFAULT", "alpha", "beta"]
    for _ in range(rng.randint(0, 10)):
        kind = rng.random()
        if kind < 0.2:
            lines.append(f"[{rng.choice(names)}]")
        elif kind < 0.3:
            lines.append(rng.choice(["", "# comment", "; other = thing"]))
        else:
            lines.append(f"{rng.choice(['Key', 'key', 'port', 'flag'])}{rng.choice(['=', ' = ', '= '])}{_value(rng)}")
    if lines and not lines[0].startswith("["):
        lines.insert(0, "[alpha]")
    text = "\n".join(lines)
    config = module.Config(text)
    log = [module.parse_ini(text), config.sections()]
    for section in names[1:]:
        for key in ["key", "port", "flag", "missing"]:
            log.append(config.get(section, key, "-"))
    return log
