import pytest

from lru_cache import LRUCache


def test_get_returns_stored_value():
    cache = LRUCache(2)
    cache.put("a", 1)
    assert cache.get("a") == 1
    assert cache.get("missing", "nope") == "nope"


def test_least_recently_used_is_evicted():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("c", 3)
    assert "a" not in cache
    assert cache.get("b") == 2
    assert cache.get("c") == 3
    assert cache.evictions == 1


def test_get_refreshes_an_entry():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert "a" in cache
    assert "b" not in cache


def test_updating_a_key_does_not_evict():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert len(cache) == 2
    assert cache.get("a") == 10
    assert cache.evictions == 0


def test_keys_are_in_recency_order():
    cache = LRUCache(3)
    for key in "xyz":
        cache.put(key, key.upper())
    cache.get("x")
    assert cache.keys() == ["x", "z", "y"]


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity"):
        LRUCache(0)
