"""Sales report built on table.py."""
from table import render_markdown, render_plain


def sales_rows(sales):
    """sales: dict region -> list of amounts."""
    return [[region, len(amounts), sum(amounts)] for region, amounts in sorted(sales.items())]


def sales_table(sales, style="plain"):
    header = ["region", "orders", "total"]
    rows = sales_rows(sales)
    if style == "markdown":
        return render_markdown(header, rows)
    return render_plain(header, rows)
