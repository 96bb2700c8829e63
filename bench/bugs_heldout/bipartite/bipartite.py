"""Two-colouring of undirected graphs: split the nodes into two sides with no edge inside a side."""

from collections import deque


def graph_from_edges(edges, nodes=()):
    graph = {node: set() for node in nodes}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set()).add(a)
    return graph


def two_colouring(graph):
    """Map each node to 0 or 1 so that neighbours differ, or return None if some cycle is odd."""
    colour = {}
    for start in sorted(graph):
        if start in colour:
            continue
        colour[start] = 0
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for other in sorted(graph[node]):
                if other not in colour:
                    colour[other] = 1 - colour[node]
                    queue.append(other)
                elif colour[other] == colour[node]:
                    return None
    return colour


def is_bipartite(graph):
    return two_colouring(graph) is not None


def partition(graph):
    """The two sides as sorted lists (the side of the smallest node first), or None."""
    colour = two_colouring(graph)
    if colour is None:
        return None
    sides = ([], [])
    for node in sorted(colour):
        sides[colour[node]].append(node)
    return sides


def can_pair_teams(rivalries, players):
    """Can the players be split into two teams so that no rivals play together?"""
    return is_bipartite(graph_from_edges(rivalries, players))
