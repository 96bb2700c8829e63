import pytest

from min_heap import PriorityQueue


def drain(queue):
    return [queue.pop() for _ in range(len(queue))]


def test_pops_in_priority_order():
    queue = PriorityQueue()
    for item, priority in [("c", 3), ("a", 1), ("d", 4), ("b", 2)]:
        queue.push(item, priority)
    assert [item for item, _ in drain(queue)] == ["a", "b", "c", "d"]


def test_ties_are_first_in_first_out():
    queue = PriorityQueue()
    for item in "xyz":
        queue.push(item, 5)
    assert [item for item, _ in drain(queue)] == ["x", "y", "z"]


def test_peek_does_not_remove():
    queue = PriorityQueue()
    queue.push("job", 7)
    queue.push("urgent", 1)
    assert queue.peek() == ("urgent", 1)
    assert len(queue) == 2


def test_change_priority_both_ways():
    queue = PriorityQueue()
    for item, priority in [("a", 1), ("b", 2), ("c", 3)]:
        queue.push(item, priority)
    queue.change_priority("c", 0)
    queue.change_priority("a", 10)
    assert drain(queue) == [("c", 0), ("b", 2), ("a", 10)]


def test_empty_queue_errors():
    queue = PriorityQueue()
    with pytest.raises(IndexError, match="empty"):
        queue.pop()
    with pytest.raises(IndexError, match="empty"):
        queue.peek()


def test_duplicate_push_is_refused():
    queue = PriorityQueue()
    queue.push("a", 1)
    with pytest.raises(KeyError, match="already"):
        queue.push("a", 2)
    assert "a" in queue
