from collections import deque


def bfs_distances(graph, start):
    """The number of edges from ``start`` to each node it reaches, in an unweighted graph given as adjacency lists."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for neighbour in graph.get(node, []):
            if neighbour not in dist:
                dist[neighbour] = dist[node] + 1
                queue.append(neighbour)
    return dist
