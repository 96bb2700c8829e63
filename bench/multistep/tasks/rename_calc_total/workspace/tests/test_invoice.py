from invoice import Invoice, calc_total, subtotal


def make():
    inv = Invoice("A-1", "Acme")
    inv.add("Widget", 3, 2.50)
    inv.add("Gadget", 1, 10.00)
    return inv


def test_subtotal():
    assert subtotal(make()) == 17.5


def test_calc_total_with_tax():
    assert calc_total(make(), 0.2) == 21.0


def test_calc_total_empty():
    assert calc_total(Invoice("A-2", "Nobody")) == 0
