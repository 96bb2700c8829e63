import inspect
import os
import sys

sys.path.insert(0, os.getcwd())

import report
import table


def test_column_widths():
    assert table.column_widths(["a", "bbb"], [["xx", 1], ["y", 12345]]) == [2, 5]
    assert table.column_widths(["name", "n"], []) == [4, 1]
    assert table.column_widths(["k"], [["long value"], ["v"]]) == [10]


def test_renderers_use_helper():
    for fn in (table.render_plain, table.render_markdown):
        src = inspect.getsource(fn)
        assert "column_widths(" in src
        assert "max(" not in src


def test_plain_output_unchanged():
    got = table.render_plain(["id", "title"], [[1, "Dune"], [12, "It"]])
    assert got == "id  title\n1   Dune\n12  It"


def test_markdown_output_unchanged():
    got = table.render_markdown(["id", "title"], [[7, "Emma"]])
    assert got == "| id | title |\n|----|-------|\n| 7  | Emma  |"


def test_report_unchanged():
    sales = {"west": [100, 250, 5], "south": [1]}
    assert report.sales_table(sales) == (
        "region  orders  total\nsouth   1       1\nwest    3       355"
    )
    md = report.sales_table(sales, style="markdown").splitlines()
    assert md[1] == "|--------|--------|-------|"
    assert md[3] == "| west   | 3      | 355   |"
