import os
import re
import sys

sys.path.insert(0, os.getcwd())

import invoice
import report


def make():
    inv = invoice.Invoice("C-3", "Carol")
    inv.add("Chair", 4, 19.99)
    inv.add("Desk", 1, 120.0)
    return inv


def test_new_name_works():
    assert invoice.invoice_total(make()) == 199.96
    assert invoice.invoice_total(make(), 0.25) == 249.95
    assert invoice.invoice_total(invoice.Invoice("E", "e")) == 0


def test_old_name_gone():
    assert not hasattr(invoice, "calc_total")
    assert not hasattr(report, "calc_total")


def test_report_uses_new_name():
    text = report.render(make(), 0.25)
    assert text.endswith("Total:    249.95")
    assert report.grand_total([make(), make()]) == 399.92


def test_no_old_name_left_in_files():
    pattern = re.compile(r"\bcalc_total\b")
    offenders = []
    for folder, _dirs, files in os.walk(os.getcwd()):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as fh:
                    if pattern.search(fh.read()):
                        offenders.append(path)
    assert offenders == []
