from topo_sort import topo_sort


def respects_edges(graph, order):
    position = {node: i for i, node in enumerate(order)}
    return all(position[u] < position[v] for u in graph for v in graph[u])


def test_chain():
    assert topo_sort({"a": ["b"], "b": ["c"], "c": []}) == ["a", "b", "c"]


def test_diamond():
    graph = {"shirt": ["tie", "belt"], "tie": ["jacket"], "belt": ["jacket"], "jacket": [], "socks": ["shoes"], "shoes": []}
    order = topo_sort(graph)
    assert sorted(order) == sorted(graph)
    assert respects_edges(graph, order)
