"""Human-readable durations: "1h30m", "2d 4h", "90s", "1.5h" <-> whole seconds."""

import re

UNITS = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhms])")


def parse_duration(text):
    """Whole seconds (rounded) for text such as "1h 30m" or "2.5d"; a bare number is seconds."""
    text = text.strip().lower()
    if re.fullmatch(r"\d+", text):
        return int(text)
    position, total = 0, 0.0
    seen = set()
    for match in _PART.finditer(text):
        if text[position : match.start()].strip(" ,"):
            raise ValueError(f"cannot read {text!r} at {position}")
        amount, unit = match.groups()
        if unit in seen:
            raise ValueError(f"unit {unit!r} given twice in {text!r}")
        seen.add(unit)
        total += float(amount) * UNITS[unit]
        position = match.end()
    if not seen or text[position:].strip(" ,"):
        raise ValueError(f"cannot read {text!r}")
    return round(total)


def split_duration(seconds):
    """[(amount, unit), ...] from the largest unit down, leaving out zero amounts."""
    parts = []
    for unit, size in UNITS.items():
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append((amount, unit))
    return parts


def format_duration(seconds, largest="d", max_parts=None):
    """"1d 2h 5s"; units above ``largest`` are folded into it ("36h" with largest="h")."""
    if seconds < 0:
        return "-" + format_duration(-seconds, largest, max_parts)
    units = list(UNITS)
    folded = seconds
    parts = []
    for unit in units[units.index(largest) :]:
        amount, folded = divmod(folded, UNITS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return " ".join(parts[:max_parts]) or "0s"


def total_duration(texts):
    return format_duration(sum(parse_duration(text) for text in texts))
