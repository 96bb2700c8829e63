import pytest

from ring_buffer import RingBuffer


def test_keeps_items_in_order_until_full():
    ring = RingBuffer(3)
    ring.extend([1, 2])
    assert list(ring) == [1, 2]
    assert not ring.is_full()


def test_overwrites_oldest_when_full():
    ring = RingBuffer(3)
    assert ring.extend([1, 2, 3, 4, 5]) == [1, 2]
    assert list(ring) == [3, 4, 5]
    assert len(ring) == 3


def test_indexing_from_both_ends():
    ring = RingBuffer(3)
    ring.extend("abcd")
    assert ring[0] == "b"
    assert ring[-1] == "d"
    with pytest.raises(IndexError):
        ring[3]


def test_popleft_then_append_wraps_around():
    ring = RingBuffer(2)
    ring.extend([1, 2])
    assert ring.popleft() == 1
    ring.append(3)
    assert list(ring) == [2, 3]


def test_popleft_on_empty():
    with pytest.raises(IndexError, match="empty"):
        RingBuffer(1).popleft()


def test_latest():
    ring = RingBuffer(4)
    ring.extend(range(6))
    assert ring.latest(2) == [4, 5]
    assert ring.latest(10) == [2, 3, 4, 5]
    assert ring.latest(0) == []
