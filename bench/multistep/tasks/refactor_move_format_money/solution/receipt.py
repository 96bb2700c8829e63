"""Printable receipts for a cart."""
from money import format_money


def receipt_lines(cart):
    lines = []
    for name in sorted(cart.items):
        price, qty = cart.items[name]
        lines.append(f"{qty} x {name:<12}{format_money(price * qty):>12}")
    lines.append(f"{'TOTAL':<16}{format_money(cart.total()):>12}")
    return lines


def print_receipt(cart):
    print("\n".join(receipt_lines(cart)))
