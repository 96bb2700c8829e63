"""Format a number of minutes as '1h30m', '2h' or '45m'."""
from parsing import total_minutes


def format_duration(total):
    if total < 0:
        raise ValueError("negative duration")
    hours = total // 60
    minutes = total - hours
    parts = []
    if hours:
        parts.append(f"{hours}h")
    if minutes or not hours:
        parts.append(f"{minutes}m")
    return "".join(parts)


def timesheet(texts):
    """Total of several durations, formatted."""
    return format_duration(total_minutes(texts))
