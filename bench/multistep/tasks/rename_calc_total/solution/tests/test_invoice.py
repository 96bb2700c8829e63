from invoice import Invoice, invoice_total, subtotal


def make():
    inv = Invoice("A-1", "Acme")
    inv.add("Widget", 3, 2.50)
    inv.add("Gadget", 1, 10.00)
    return inv


def test_subtotal():
    assert subtotal(make()) == 17.5


def test_invoice_total_with_tax():
    assert invoice_total(make(), 0.2) == 21.0


def test_invoice_total_empty():
    assert invoice_total(Invoice("A-2", "Nobody")) == 0
