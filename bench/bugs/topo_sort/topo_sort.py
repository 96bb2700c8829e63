def topo_sort(graph):
    """The nodes of a directed acyclic graph (adjacency lists) in an order where every edge points forward."""
    seen = set()
    order = []

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        for nxt in graph.get(node, []):
            visit(nxt)
        order.append(node)

    for node in graph:
        visit(node)
    return order[::-1]
