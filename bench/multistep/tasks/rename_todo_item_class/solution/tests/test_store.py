from models import TodoItem
from store import TodoStore


def test_add_returns_item():
    store = TodoStore()
    assert isinstance(store.add("bread"), TodoItem)


def test_pending_sorted_by_priority():
    store = TodoStore()
    store.add("low", 1)
    store.add("high", 9)
    store.add("done", 5)
    store.complete("done")
    assert [i.title for i in store.pending()] == ["high", "low"]


def test_dumps_loads():
    store = TodoStore()
    store.add("a b c", 3)
    again = TodoStore.loads(store.dumps())
    assert again.items == [TodoItem("a b c", priority=3)]
