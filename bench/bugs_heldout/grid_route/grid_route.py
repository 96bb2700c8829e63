"""Shortest routes on a grid map: '#' is a wall, 'S' the start, 'E' the exit; moves are up/down/left/right."""

from collections import deque

MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))


class GridMap:
    def __init__(self, text):
        self.rows = text.strip("\n").splitlines()
        if not self.rows:
            raise ValueError("empty map")

    def find(self, symbol):
        for r, row in enumerate(self.rows):
            c = row.find(symbol)
            if c >= 0:
                return r, c
        raise ValueError(f"no {symbol!r} on the map")

    def open(self, r, c):
        return 0 <= r < len(self.rows) and 0 <= c < len(self.rows[r]) and self.rows[r][c] != "#"

    def neighbours(self, cell):
        r, c = cell
        for dr, dc in MOVES:
            if self.open(r + dr, c + dc):
                yield r + dr, c + dc

    def route(self, start=None, goal=None):
        """The cells of a shortest route from start to goal inclusive, or None when walled off."""
        start = start or self.find("S")
        goal = goal or self.find("E")
        came_from = {start: None}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            if cell == goal:
                return self._walk_back(came_from, goal)
            for nxt in self.neighbours(cell):
                if nxt not in came_from:
                    came_from[nxt] = cell
                    queue.append(nxt)
        return None

    @staticmethod
    def _walk_back(came_from, cell):
        path = []
        while cell is not None:
            path.append(cell)
            cell = came_from[cell]
        return path[::-1]

    def distance(self, start=None, goal=None):
        path = self.route(start, goal)
        return -1 if path is None else len(path) - 1
