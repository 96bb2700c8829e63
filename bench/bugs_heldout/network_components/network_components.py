"""Which machines can reach each other: connected components of an undirected network."""


class Network:
    def __init__(self):
        self._links = {}

    def add_host(self, host):
        self._links.setdefault(host, set())

    def link(self, a, b):
        self.add_host(a)
        self.add_host(b)
        if a != b:
            self._links[a].add(b)
            self._links[b].add(a)

    def unlink(self, a, b):
        self._links.get(a, set()).discard(b)
        self._links.get(b, set()).discard(a)

    def _reachable(self, start):
        seen = {start}
        stack = [start]
        while stack:
            host = stack.pop()
            for other in self._links[host]:
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        return seen

    def components(self):
        """Each component as a sorted list; components ordered by their smallest host."""
        assigned = set()
        result = []
        for host in sorted(self._links):
            if host in assigned:
                continue
            members = list(self._reachable(host))
            assigned.update(members)
            result.append(sorted(members))
        return result

    def component_of(self, host):
        for members in self.components():
            if host in members:
                return members
        raise KeyError(host)

    def can_reach(self, a, b):
        return b in self._reachable(a)

    def isolated(self):
        return [members[0] for members in self.components() if len(members) == 1]

    def largest(self):
        return max(self.components(), key=len, default=[])
