"""Cheapest routes in a weighted directed graph (Dijkstra with a binary heap)."""

import heapq
import math


class RoadMap:
    def __init__(self):
        self._roads = {}

    def add_road(self, a, b, cost, *, two_way=False):
        if cost < 0:
            raise ValueError(f"road {a}->{b} has negative cost {cost}")
        self._roads.setdefault(a, {})
        self._roads.setdefault(b, {})
        self._roads[a][b] = min(cost, self._roads[a].get(b, math.inf))
        if two_way:
            self.add_road(b, a, cost)

    def costs_from(self, source):
        """Cheapest cost from source to every reachable place, and each place's predecessor."""
        best = {source: 0}
        previous = {}
        frontier = [(0, source)]
        settled = set()
        while frontier:
            cost, place = heapq.heappop(frontier)
            if place in settled:
                continue
            settled.add(place)
            for nxt, step in self._roads.get(place, {}).items():
                candidate = cost + step
                if candidate < best.get(nxt, math.inf):
                    best[nxt] = candidate
                    previous[nxt] = place
                    heapq.heappush(frontier, (candidate, nxt))
        return best, previous

    def route(self, source, target):
        """(cost, places) of a cheapest route, or None when target cannot be reached."""
        best, previous = self.costs_from(source)
        if target not in best:
            return None
        places = [target]
        while places[-1] != source:
            places.append(previous[places[-1]])
        return best[target], places[::-1]

    def reachable_within(self, source, budget):
        best, _ = self.costs_from(source)
        return sorted(place for place, cost in best.items() if cost <= budget)
