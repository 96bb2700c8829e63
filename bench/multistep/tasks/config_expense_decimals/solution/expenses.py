"""Recording and formatting expenses."""


def format_amount(amount, config):
    """12.5 -> '12.50 EUR'"""
    return f"{amount:.{config['decimals']}f} {config['currency']}"


def add_expense(ledger, category, amount, config):
    if category not in config["categories"]:
        raise ValueError(f"unknown category {category!r}")
    ledger.setdefault(category, []).append(amount)
    return format_amount(amount, config)
