from url_query import build_query, get_one, parse_query, quote, unquote


def test_parse_simple():
    assert parse_query("a=1&b=two") == {"a": ["1"], "b": ["two"]}


def test_repeated_names_and_leading_question_mark():
    assert parse_query("?tag=x&tag=y&n=1") == {"tag": ["x", "y"], "n": ["1"]}


def test_flags_and_empty_pairs():
    assert parse_query("debug&&q=") == {"debug": [""], "q": [""]}


def test_values_may_contain_equals():
    assert parse_query("expr=a%3Db&raw=x=y") == {"expr": ["a=b"], "raw": ["x=y"]}


def test_unquote():
    assert unquote("caf%C3%A9+au+lait") == "café au lait"
    assert unquote("100%") == "100%"
    assert unquote("%zz") == "%zz"


def test_quote_round_trip():
    text = "a&b=c d/é"
    assert unquote(quote(text)) == text


def test_get_one():
    assert get_one("page=1&page=3", "page") == "3"
    assert get_one("page=1", "size", "10") == "10"


def test_build_query():
    query = build_query({"q": "fish & chips", "tag": ["a", "b"]})
    assert query == "q=fish+%26+chips&tag=a&tag=b"
    assert parse_query(query) == {"q": ["fish & chips"], "tag": ["a", "b"]}
