from table import render_markdown, render_plain


def test_plain():
    assert render_plain(["a", "b"], [["xyz", 1]]) == "a    b\nxyz  1"


def test_markdown():
    assert render_markdown(["a", "b"], [["xyz", 1]]) == "| a   | b |\n|-----|---|\n| xyz | 1 |"
