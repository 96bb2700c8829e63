import heapq


def dijkstra(graph, source):
    """Shortest path lengths from ``source``; ``graph[u]`` is a list of ``(v, weight)`` with weights >= 0."""
    dist = {source: 0}
    heap = [(0, source)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, weight in graph.get(u, []):
            nd = d + weight
            if v not in dist or nd < dist[v]:
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist
