"""Summaries of a ledger (dict category -> list of amounts)."""
from expenses import format_amount


def category_totals(ledger):
    return {cat: sum(amounts) for cat, amounts in sorted(ledger.items())}


def format_average(ledger, config):
    """Average expense over all categories, e.g. 'average 3.33 EUR'."""
    amounts = [a for values in ledger.values() for a in values]
    average = sum(amounts) / len(amounts) if amounts else 0
    return f"average {average:.2f} {config['currency']}"


def report(ledger, config):
    lines = [f"{cat}: {format_amount(total, config)}" for cat, total in category_totals(ledger).items()]
    lines.append(format_average(ledger, config))
    return "\n".join(lines)
