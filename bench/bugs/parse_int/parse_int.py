def parse_int(text):
    """The integer written in ``text``: optional spaces, an optional sign, then digits (stops at the first non-digit)."""
    text = text.strip()
    sign = 1
    if text[:1] in ("+", "-"):
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    value = 0
    for ch in text:
        if not ch.isdigit():
            break
        value = value * 10 + int(ch)
    return sign * value
