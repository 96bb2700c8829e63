"""Count log lines per level ('ERROR disk full' has level ERROR)."""
from collections import Counter


def count_levels(lines, settings):
    counts = Counter()
    for line in lines:
        if not line.strip():
            continue
        level = line.split()[0]
        counts[level] += 1
    return counts


def top_levels(lines, settings):
    return count_levels(lines, settings).most_common(settings["top"])
