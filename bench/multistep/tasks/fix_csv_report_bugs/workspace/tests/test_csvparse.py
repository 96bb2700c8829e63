from csvparse import parse_rows


def test_parse_rows():
    text = "name,qty\napple,3\npear,5\n"
    assert parse_rows(text) == [{"name": "apple", "qty": "3"}, {"name": "pear", "qty": "5"}]


def test_empty():
    assert parse_rows("") == []
