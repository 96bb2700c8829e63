from report import format_summary, summarize


def test_summarize_keys():
    s = summarize([2, 4, 9])
    assert s["count"] == 3
    assert s["mean"] == 5
    assert s["range"] == 7


def test_format_summary():
    assert format_summary("age", [10, 20]) == "age: n=2 mean=15.00 range=10"
