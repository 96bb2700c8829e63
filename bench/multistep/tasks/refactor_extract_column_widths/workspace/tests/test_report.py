from report import sales_rows, sales_table

SALES = {"north": [10, 20], "east": [5]}


def test_rows():
    assert sales_rows(SALES) == [["east", 1, 5], ["north", 2, 30]]


def test_plain_table():
    assert sales_table(SALES).splitlines()[0] == "region  orders  total"
