"""Products held in stock."""
from dataclasses import dataclass


@dataclass
class Product:
    name: str
    quantity: int
    price: float

    @property
    def value(self):
        return self.quantity * self.price


def sort_products(products, key="name", reverse=False):
    """Return the products sorted by one of their attributes."""
    return sorted(products, key=lambda p: getattr(p, key), reverse=reverse)


def low_stock(products, threshold=5):
    return [p for p in products if p.quantity < threshold]
