from report import column_total, render


def test_column_total_decimals():
    rows = [{"amount": "1.50"}, {"amount": "2.25"}]
    assert column_total(rows, "amount") == 3.75


def test_render():
    text = "item,amount\ntea,2.50\ncake,3.20\n"
    assert render(text, "amount") == "2 rows, total amount = 5.70"
