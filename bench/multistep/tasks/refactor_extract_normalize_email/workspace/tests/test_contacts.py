import pytest

from contacts import ContactBook


def test_add_normalises():
    book = ContactBook()
    assert book.add("Ann", " Ann+work@Example.com ") == "ann@example.com"
    assert book.name_for("ann@example.com") == "Ann"


def test_add_rejects_bad_address():
    with pytest.raises(ValueError):
        ContactBook().add("Bob", "bob")
