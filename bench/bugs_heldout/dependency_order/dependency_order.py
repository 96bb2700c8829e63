"""Order build steps so that every step comes after the steps it depends on."""

_ACTIVE, _DONE = "active", "done"


class CycleError(ValueError):
    def __init__(self, cycle):
        super().__init__("dependency cycle: " + " -> ".join(cycle))
        self.cycle = cycle


class DependencyGraph:
    def __init__(self, requirements=None):
        self._deps = {}
        for item, needs in (requirements or {}).items():
            self.require(item, *needs)

    def require(self, item, *needs):
        self._deps.setdefault(item, set()).update(needs)
        for need in needs:
            self._deps.setdefault(need, set())

    def items(self):
        return sorted(self._deps)

    def order(self, targets=None):
        """Dependencies first; only what targets need when targets are given. Ties break alphabetically."""
        state = {}
        order = []
        path = []

        def visit(item):
            if state.get(item) == _DONE:
                return
            if state.get(item) == _ACTIVE:
                raise CycleError([*path[path.index(item) :], item])
            state[item] = _ACTIVE
            path.append(item)
            for need in sorted(self._deps[item]):
                visit(need)
            path.pop()
            state[item] = _DONE
            order.append(item)

        for item in sorted(targets) if targets is not None else self.items():
            visit(item)
        return order

    def find_cycle(self):
        try:
            self.order()
        except CycleError as err:
            return err.cycle
        return None

    def depth(self, item):
        """Length of the longest chain of dependencies below item."""
        return max((self.depth(need) + 1 for need in self._deps[item]), default=0)
