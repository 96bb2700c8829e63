from has_cycle import has_cycle


def test_cycle():
    assert has_cycle({"a": ["b"], "b": ["c"], "c": ["a"]})


def test_self_loop():
    assert has_cycle({"a": ["a"]})


def test_diamond_is_not_a_cycle():
    assert not has_cycle({"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []})


def test_node_finished_by_an_earlier_search_is_not_a_cycle():
    assert not has_cycle({"d": [], "a": ["d"]})
