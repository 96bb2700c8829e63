import pytest

from csv_reader import CsvError, column, parse_rows, read_records


def test_plain_rows():
    assert parse_rows("a,b\n1,2\n") == [["a", "b"], ["1", "2"]]


def test_quoted_fields():
    text = 'name,quote\nAda,"Hello, ""world"""\nBob,"two\nlines"\n'
    assert parse_rows(text)[1:] == [["Ada", 'Hello, "world"'], ["Bob", "two\nlines"]]


def test_empty_fields_and_crlf():
    assert parse_rows("a,,c\r\n,\r\n") == [["a", "", "c"], ["", ""]]


def test_records():
    records = read_records("id;name\n1;Ada\n2;Bob\n", delimiter=";")
    assert records == [{"id": "1", "name": "Ada"}, {"id": "2", "name": "Bob"}]


def test_short_records_are_padded():
    assert read_records("a,b,c\n1\n") == [{"a": "1", "b": None, "c": None}]


def test_column():
    assert column("x,y\n1,2\n3,4\n", "y") == ["2", "4"]


def test_errors():
    with pytest.raises(CsvError, match="unterminated"):
        parse_rows('a,"b\n')
    with pytest.raises(CsvError, match="line 3"):
        read_records("a\n1\n1,2\n")
    with pytest.raises(CsvError, match="duplicate"):
        read_records("a,a\n")
