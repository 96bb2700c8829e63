"""Project scheduling with the critical path method: earliest and latest starts, slack and the critical tasks."""

from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Task:
    name: str
    duration: int
    after: tuple[str, ...] = field(default=())


class Project:
    def __init__(self, tasks):
        self.tasks = {task.name: task for task in tasks}
        for task in tasks:
            unknown = [name for name in task.after if name not in self.tasks]
            if unknown:
                raise ValueError(f"{task.name!r} depends on unknown tasks {unknown}")

    def order(self):
        """Tasks in an order that respects dependencies (Kahn's algorithm, ties by name)."""
        waiting = {name: len(set(task.after)) for name, task in self.tasks.items()}
        followers = {name: [] for name in self.tasks}
        for name, task in self.tasks.items():
            for before in set(task.after):
                followers[before].append(name)
        ready = deque(sorted(name for name, count in waiting.items() if count == 0))
        order = []
        while ready:
            name = ready.popleft()
            order.append(name)
            for nxt in sorted(followers[name]):
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    ready.append(nxt)
        if len(order) != len(self.tasks):
            raise ValueError("the dependencies contain a cycle")
        return order

    def earliest(self):
        """name -> (earliest start, earliest finish)."""
        times = {}
        for name in self.order():
            task = self.tasks[name]
            start = max((times[before][1] for before in task.after), default=0)
            times[name] = (start, start + task.duration)
        return times

    def length(self):
        return max((finish for _, finish in self.earliest().values()), default=0)

    def slack(self):
        """name -> how long the task can slip without delaying the project."""
        earliest, total = self.earliest(), self.length()
        latest_start = {}
        followers = {name: [] for name in self.tasks}
        for task in self.tasks.values():
            for before in task.after:
                followers[before].append(task.name)
        for name in reversed(self.order()):
            finish = min((latest_start[nxt] for nxt in followers[name]), default=total)
            latest_start[name] = finish - self.tasks[name].duration
        return {name: latest_start[name] - earliest[name][0] for name in self.tasks}

    def critical_tasks(self):
        slack = self.slack()
        return [name for name in self.order() if slack[name] == 0]
