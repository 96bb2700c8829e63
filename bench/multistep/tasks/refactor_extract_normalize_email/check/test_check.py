import importlib
import inspect
import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import contacts
import mailing


def test_normalize_email():
    emails = importlib.import_module("emails")
    assert emails.normalize_email("  Bob+News@Example.COM ") == "bob@example.com"
    assert emails.normalize_email("eve@mail.org") == "eve@mail.org"
    assert emails.normalize_email("a+b+c@d.io") == "a@d.io"
    for bad in ["nobody", "@host.com", "user@"]:
        with pytest.raises(ValueError):
            emails.normalize_email(bad)


def test_both_callers_use_helper():
    add_src = inspect.getsource(contacts.ContactBook.add)
    rec_src = inspect.getsource(mailing.unique_recipients)
    for src in (add_src, rec_src):
        assert "normalize_email(" in src
        assert "partition" not in src
        assert "split(" not in src


def test_contact_book_behaviour():
    book = contacts.ContactBook()
    assert book.add("Zed", "ZED+spam@Host.net") == "zed@host.net"
    book.add("Zed again", "zed@host.net")
    assert len(book) == 1 and book.name_for("zed@host.net") == "Zed again"
    with pytest.raises(ValueError):
        book.add("X", "@nohost")


def test_mailing_behaviour():
    got = mailing.unique_recipients(["B@q.com", "a@q.com", "b+1@Q.com"])
    assert got == ["b@q.com", "a@q.com"]
    assert mailing.to_header(["x@y.z", " X@Y.Z"]) == "x@y.z"
    with pytest.raises(ValueError):
        mailing.unique_recipients(["fine@ok.com", "broken"])
