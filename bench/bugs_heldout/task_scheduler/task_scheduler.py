"""Scheduling tasks with dependencies: a topological order, earliest start times and the critical path."""

import heapq
from dataclasses import dataclass


class CycleError(ValueError):
    def __init__(self, names):
        super().__init__(f"dependency cycle among {', '.join(names)}")
        self.names = names


@dataclass(frozen=True)
class Task:
    name: str
    duration: int
    after: tuple = ()


def _graph(tasks):
    by_name = {task.name: task for task in tasks}
    dependents = {name: [] for name in by_name}
    for task in tasks:
        for dep in task.after:
            if dep not in by_name:
                raise KeyError(f"{task.name!r} depends on unknown task {dep!r}")
            dependents[dep].append(task.name)
    return by_name, dependents


def topological_order(tasks):
    """Every task after its dependencies; among tasks that are ready, alphabetical order."""
    by_name, dependents = _graph(tasks)
    waiting = {name: len(set(task.after)) for name, task in by_name.items()}
    ready = [name for name, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        name = heapq.heappop(ready)
        order.append(name)
        for child in dependents[name]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, child)
    if len(order) < len(by_name):
        raise CycleError(sorted(set(by_name) - set(order)))
    return order


def earliest_schedule(tasks):
    """{name: (start, finish)} when every task starts as soon as its dependencies finish."""
    by_name = {task.name: task for task in tasks}
    times = {}
    for name in topological_order(tasks):
        task = by_name[name]
        start = max((times[dep][1] for dep in task.after), default=0)
        times[name] = (start, start + task.duration)
    return times


def makespan(tasks):
    finish = {name: end for name, (_, end) in earliest_schedule(tasks).items()}
    return max(finish.values(), default=0)


def critical_path(tasks):
    """The chain of tasks that decides the makespan, first to last (ties: the alphabetically first)."""
    times = earliest_schedule(tasks)
    if not times:
        return []
    by_name = {task.name: task for task in tasks}
    name = min(times, key=lambda n: (-times[n][1], n))
    path = [name]
    while by_name[name].after:
        start = times[name][0]
        name = min(dep for dep in by_name[name].after if times[dep][1] == start)
        path.append(name)
    return path[::-1]
