def is_bipartite(graph):
    """Whether an undirected graph (adjacency lists, both directions) can be two-coloured."""
    colour = {}
    for start in graph:
        if start in colour:
            continue
        colour[start] = 0
        stack = [start]
        while stack:
            node = stack.pop()
            for nxt in graph[node]:
                if nxt not in colour:
                    colour[nxt] = 1 - colour[node]
                    stack.append(nxt)
                elif colour[nxt] == colour[node]:
                    return False
    return True
