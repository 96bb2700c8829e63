def parse_nested(text):
    """Parse a bracketed list such as '[1,[2,3],[]]' into nested Python lists of ints."""
    value, end = _parse(text.replace(" ", ""), 0)
    if end != len(text.replace(" ", "")):
        raise ValueError(f"trailing text at {end}")
    return value


def _parse(text, i):
    if text[i] != "[":
        j = i
        while j < len(text) and (text[j].isdigit() or text[j] == "-"):
            j += 1
        return int(text[i:j]), j
    items = []
    i += 1
    while text[i] != "]":
        item, i = _parse(text, i)
        items.append(item)
        if text[i] == ",":
            i += 1
    return items, i + 1


def depth(value):
    """How deeply lists nest in ``value``: 0 for a number, 1 for a flat list."""
    if not isinstance(value, list):
        return 0
    return 1 + max((depth(item) for item in value), default=0)
