"""Text listings of the inventory."""
from inventory import sort_products


def render_line(product):
    return f"{product.name:<10}{product.quantity:>5}{product.price:>8.2f}"


def render(products, key="name"):
    """One line per product, sorted by key."""
    lines = [render_line(p) for p in sort_products(products, key)]
    return "\n".join(lines)


def stock_value(products):
    return round(sum(p.value for p in products), 2)
