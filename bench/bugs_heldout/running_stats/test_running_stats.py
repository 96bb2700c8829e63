import pytest

from running_stats import RunningStats, Snapshot, running, zscores


def stats_of(values):
    stats = RunningStats()
    for value in values:
        stats.push(value)
    return stats


def test_mean_and_extremes():
    stats = stats_of([4, 8, 6])
    assert stats.mean == pytest.approx(6.0)
    assert (stats.minimum, stats.maximum) == (4, 8)


def test_sample_variance():
    assert stats_of([2, 4, 4, 4, 5, 5, 7, 9]).variance() == pytest.approx(32 / 7)


def test_population_stdev():
    assert stats_of([2, 4, 4, 4, 5, 5, 7, 9]).stdev(sample=False) == pytest.approx(2.0)


def test_variance_of_one_value_is_zero():
    assert stats_of([3]).variance() == 0.0
    assert RunningStats().variance(sample=False) == 0.0


def test_running_snapshots():
    snapshots = list(running([1, 3, 5]))
    assert snapshots[0] == Snapshot(1, 1.0, 0.0)
    assert snapshots[-1].mean == pytest.approx(3.0)
    assert snapshots[-1].variance == pytest.approx(4.0)


def test_zscores():
    scores = list(zscores([10, 12, 14, 30]))
    assert scores[:2] == [None, None]
    assert scores[2] == pytest.approx(3 / 2**0.5)
    assert scores[3] == pytest.approx(9.0)
