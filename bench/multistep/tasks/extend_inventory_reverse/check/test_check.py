import os
import re
import sys

sys.path.insert(0, os.getcwd())

import inventory
import listing

P = inventory.Product
ITEMS = [P("drill", 4, 89.0), P("bolts", 120, 0.15), P("tape", 15, 3.4), P("glue", 9, 4.75)]


def names(products):
    return [p.name for p in products]


def test_sort_default_unchanged():
    assert names(inventory.sort_products(ITEMS)) == ["bolts", "drill", "glue", "tape"]
    assert names(inventory.sort_products(ITEMS, "quantity")) == ["drill", "glue", "tape", "bolts"]


def test_sort_reverse():
    assert names(inventory.sort_products(ITEMS, reverse=True)) == ["tape", "glue", "drill", "bolts"]
    got = inventory.sort_products(ITEMS, "price", reverse=True)
    assert names(got) == ["drill", "glue", "tape", "bolts"]
    assert names(inventory.sort_products(ITEMS, "price", reverse=False)) == ["bolts", "tape", "glue", "drill"]


def test_render_reverse():
    text = listing.render(ITEMS, "quantity", reverse=True)
    assert [line.split()[0] for line in text.splitlines()] == ["bolts", "tape", "glue", "drill"]
    assert text.splitlines()[0] == "bolts       120    0.15"


def test_render_default_unchanged():
    text = listing.render(ITEMS, "quantity")
    assert [line.split()[0] for line in text.splitlines()] == ["drill", "glue", "tape", "bolts"]


def test_tests_use_reverse():
    with open(os.path.join(os.getcwd(), "tests", "test_listing.py")) as fh:
        assert re.search(r"reverse\s*=\s*True", fh.read())
