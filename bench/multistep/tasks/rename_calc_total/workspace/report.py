"""Plain-text invoice reports."""
from invoice import calc_total, subtotal


def render(invoice, tax_rate=0.0):
    lines = [f"Invoice {invoice.number} for {invoice.customer}"]
    for line in invoice.lines:
        amount = line.quantity * line.unit_price
        lines.append(f"  {line.description:<12} {line.quantity:>3} x {line.unit_price:>7.2f} = {amount:>8.2f}")
    lines.append(f"  Subtotal: {subtotal(invoice):.2f}")
    lines.append(f"  Total:    {calc_total(invoice, tax_rate):.2f}")
    return "\n".join(lines)


def grand_total(invoices, tax_rate=0.0):
    return round(sum(calc_total(inv, tax_rate) for inv in invoices), 2)
