def trial(module, rng):
    numbers = [rng.randint(1, 3999) for _ in range(3)] + [rng.choice([1, 4, 40, 44, 49, 90, 400, 3999])]
    numerals = [module.to_roman(n) for n in numbers]
    junk = "".join(rng.choice("IVXLCDM") for _ in range(rng.randint(0, 5)))
    return [numerals, [module.from_roman(s.lower()) for s in numerals], module.is_roman(junk), junk]
