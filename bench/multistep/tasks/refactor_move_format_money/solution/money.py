"""Money formatting."""


def format_money(amount):
    """1234.5 -> '$1,234.50', -3 -> '-$3.00'"""
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,.2f}"
