from interleave import interleave, intersperse, merge_sorted, roundrobin


def test_roundrobin():
    assert "".join(roundrobin("ABC", "D", "EF")) == "ADEBFC"


def test_roundrobin_with_empty_inputs():
    assert list(roundrobin([], [1, 2], [])) == [1, 2]
    assert list(roundrobin()) == []


def test_interleave_stops_at_shortest():
    assert list(interleave([1, 2, 3], "ab")) == [1, "a", 2, "b"]


def test_intersperse():
    assert list(intersperse([1, 2, 3], 0)) == [1, 0, 2, 0, 3]
    assert list(intersperse([], 0)) == []


def test_intersperse_keeps_falsy_items():
    assert "".join(intersperse(["a", "", "b"], ",")) == "a,,b"


def test_merge_sorted():
    assert list(merge_sorted([1, 4, 9], [2, 3], [], [5])) == [1, 2, 3, 4, 5, 9]


def test_merge_sorted_with_key_is_stable():
    words = list(merge_sorted(["b", "ccc"], ["a", "dd"], key=len))
    assert words == ["b", "a", "dd", "ccc"]
