from interval_set import IntervalSet


def test_overlapping_intervals_merge():
    spans = IntervalSet([(5, 8), (1, 3), (2, 6)])
    assert spans.intervals() == [(1, 8)]


def test_touching_intervals_merge():
    spans = IntervalSet([(1, 3)])
    spans.add(3, 5)
    assert spans.intervals() == [(1, 5)]
    assert len(spans) == 1


def test_empty_intervals_are_ignored():
    assert IntervalSet([(4, 4), (6, 2)]).intervals() == []


def test_membership_is_half_open():
    spans = IntervalSet([(0, 2), (10, 12)])
    assert 0 in spans
    assert 1.5 in spans
    assert 2 not in spans
    assert 11 in spans
    assert -1 not in spans


def test_remove_splits_an_interval():
    spans = IntervalSet([(0, 10)])
    spans.remove(3, 5)
    assert spans.intervals() == [(0, 3), (5, 10)]
    assert spans.total_length() == 8


def test_union_and_equality():
    left = IntervalSet([(0, 2)])
    right = IntervalSet([(2, 4), (6, 7)])
    assert (left | right) == IntervalSet([(0, 4), (6, 7)])


def test_gaps():
    spans = IntervalSet([(2, 4), (6, 8)])
    assert list(spans.gaps(0, 10)) == [(0, 2), (4, 6), (8, 10)]
    assert list(spans.gaps(3, 7)) == [(4, 6)]
