from mailing import to_header, unique_recipients


def test_duplicates_removed():
    got = unique_recipients(["a@x.org", "A+news@X.org", "b@x.org"])
    assert got == ["a@x.org", "b@x.org"]


def test_header():
    assert to_header(["c@y.net", "c@y.net"]) == "c@y.net"
