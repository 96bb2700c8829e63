from split_fields import split_fields


def test_plain():
    assert split_fields("a,b,c") == ["a", "b", "c"]


def test_quoted_separator():
    assert split_fields('name,"Smith, John",42') == ["name", "Smith, John", "42"]


def test_empty_fields_and_other_separator():
    assert split_fields("a,,b,") == ["a", "", "b", ""]
    assert split_fields("x;y", sep=";") == ["x", "y"]
