"""Data model of the todo store."""
from dataclasses import dataclass


@dataclass
class Item:
    title: str
    done: bool = False
    priority: int = 0

    def to_line(self):
        mark = "x" if self.done else " "
        return f"[{mark}] {self.priority} {self.title}"

    @classmethod
    def from_line(cls, line):
        priority, title = line[4:].split(" ", 1)
        return cls(title=title, done=(line[1] == "x"), priority=int(priority))
