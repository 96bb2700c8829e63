"""Summaries of numeric columns."""
from stats import mean, value_range


def summarize(values):
    """Return a dict describing a non-empty list of numbers."""
    return {
        "count": len(values),
        "mean": mean(values),
        "range": value_range(values),
    }


def format_summary(name, values):
    s = summarize(values)
    return f"{name}: n={s['count']} mean={s['mean']:.2f} range={s['range']}"
