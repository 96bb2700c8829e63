from invoice import Invoice, invoice_total
from report import grand_total, render


def test_render_mentions_total():
    inv = Invoice("B-7", "Bob")
    inv.add("Pen", 2, 1.25)
    text = render(inv)
    assert text.splitlines()[0] == "Invoice B-7 for Bob"
    assert text.endswith(f"Total:    {invoice_total(inv):.2f}")


def test_grand_total():
    a = Invoice("1", "x")
    a.add("a", 1, 1.0)
    b = Invoice("2", "y")
    b.add("b", 2, 2.0)
    assert grand_total([a, b], 0.1) == 5.5
