"""Stock levels per SKU, with reservations held for orders until they ship or are cancelled."""

from collections import defaultdict


class OutOfStock(Exception):
    def __init__(self, sku, wanted, available):
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku


class Inventory:
    def __init__(self):
        self._on_hand = defaultdict(int)
        self._holds = {}  # order id -> {sku: quantity}

    def receive(self, sku, quantity):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self._on_hand[sku] += quantity

    def on_hand(self, sku):
        return self._on_hand.get(sku, 0)

    def reserved(self, sku):
        return sum(hold.get(sku, 0) for hold in self._holds.values())

    def available(self, sku):
        return self.on_hand(sku) - self.reserved(sku)

    def reserved_fraction(self, sku):
        """How much of the stock on hand is promised to orders (0.0 when there is none)."""
        stock = self.on_hand(sku)
        return self.reserved(sku) / stock if stock else 0.0

    def reserve(self, order_id, items):
        """Hold every line of the order, or none of them."""
        for sku, quantity in items.items():
            if quantity > self.available(sku):
                raise OutOfStock(sku, quantity, self.available(sku))
        hold = self._holds.setdefault(order_id, {})
        for sku, quantity in items.items():
            hold[sku] = hold.get(sku, 0) + quantity

    def release(self, order_id):
        return self._holds.pop(order_id, None) is not None

    def ship(self, order_id):
        hold = self._holds.pop(order_id)
        for sku, quantity in hold.items():
            self._on_hand[sku] -= quantity
        return sorted(hold.items())
