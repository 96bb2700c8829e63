"""Parse durations like '1h30m', '2h' or '45m' into minutes."""
import re

PATTERN = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?$")


def parse_duration(text):
    match = PATTERN.match(text.strip().lower())
    if not match or not any(match.groups()):
        raise ValueError(f"bad duration: {text!r}")
    hours, minutes = match.groups()
    return int(hours or 0) * 60 + int(minutes)


def total_minutes(texts):
    return sum(parse_duration(t) for t in texts)
