"""A shopping cart."""
from money import format_money


class Cart:
    def __init__(self):
        self.items = {}  # name -> (unit_price, quantity)

    def add(self, name, unit_price, quantity=1):
        _, old_qty = self.items.get(name, (unit_price, 0))
        self.items[name] = (unit_price, old_qty + quantity)

    def remove(self, name):
        self.items.pop(name, None)

    def total(self):
        return sum(price * qty for price, qty in self.items.values())

    def summary(self):
        count = sum(qty for _, qty in self.items.values())
        return f"{count} items, {format_money(self.total())}"
