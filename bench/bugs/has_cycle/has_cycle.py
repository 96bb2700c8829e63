def has_cycle(graph):
    """Whether a directed graph (adjacency lists) has a cycle: depth-first search with three colours."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {node: WHITE for node in graph}

    def visit(node):
        colour[node] = GREY
        for nxt in graph.get(node, []):
            if colour.get(nxt, WHITE) == GREY:
                return True
            if colour.get(nxt, WHITE) == WHITE and visit(nxt):
                return True
        colour[node] = BLACK
        return False

    return any(colour[node] == WHITE and visit(node) for node in graph)
