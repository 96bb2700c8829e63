"""Invoices made of priced lines."""
from dataclasses import dataclass, field


@dataclass
class Line:
    description: str
    quantity: int
    unit_price: float


@dataclass
class Invoice:
    number: str
    customer: str
    lines: list = field(default_factory=list)

    def add(self, description, quantity, unit_price):
        self.lines.append(Line(description, quantity, unit_price))


def subtotal(invoice):
    return sum(line.quantity * line.unit_price for line in invoice.lines)


def invoice_total(invoice, tax_rate=0.0):
    """Subtotal plus tax, rounded to cents."""
    return round(subtotal(invoice) * (1 + tax_rate), 2)
