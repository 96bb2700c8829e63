import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import csvparse
import report


def test_single_row_kept():
    assert csvparse.parse_rows("a,b\n1,2") == [{"a": "1", "b": "2"}]


def test_all_rows_kept_without_trailing_newline():
    text = "city, pop\nOslo, 700\nBergen, 290\nTromso, 77"
    rows = csvparse.parse_rows(text)
    assert [r["city"] for r in rows] == ["Oslo", "Bergen", "Tromso"]
    assert rows[-1] == {"city": "Tromso", "pop": "77"}


def test_header_only():
    assert csvparse.parse_rows("x,y\n") == []


def test_total_keeps_decimals():
    rows = [{"p": "0.99"}, {"p": "0.99"}, {"p": "10"}]
    assert report.column_total(rows, "p") == pytest.approx(11.98)
    assert report.column_total([{"p": "-1.5"}], "p") == pytest.approx(-1.5)


def test_render_both_fixed():
    text = "sku,price\nA,1.10\nB,2.20\nC,3.35\n"
    assert report.render(text, "price") == "3 rows, total price = 6.65"
