from trie import Trie


def test_membership():
    trie = Trie(["car", "cart", "cat"])
    assert "car" in trie
    assert "cart" in trie
    assert "dog" not in trie


def test_prefix_alone_is_not_a_word():
    trie = Trie(["cart"])
    assert "car" not in trie
    assert trie.has_prefix("car")


def test_size_counts_distinct_words():
    trie = Trie(["a", "ab", "a"])
    assert trie.size == 2


def test_complete_in_order():
    trie = Trie(["tea", "ten", "to", "inn", "tended"])
    assert trie.complete("te") == ["tea", "ten", "tended"]
    assert trie.complete("t", limit=2) == ["tea", "ten"]
    assert trie.complete("x") == []


def test_remove_keeps_longer_words():
    trie = Trie(["car", "cart"])
    assert trie.remove("car")
    assert "car" not in trie
    assert "cart" in trie
    assert trie.size == 1


def test_remove_prunes_branches():
    trie = Trie(["car", "cart"])
    trie.remove("cart")
    assert not trie.has_prefix("cart")
    assert trie.has_prefix("car")
    assert not trie.remove("ca")
