"""A schedule of events that can be saved as JSON."""
import json

from events import Event


class Schedule:
    def __init__(self):
        self.events = []

    def add(self, event):
        clashes = [e for e in self.events if e.overlaps(event)]
        if clashes:
            raise ValueError(f"{event.name} clashes with {clashes[0].name}")
        self.events.append(event)

    def on_day(self, day):
        return sorted((e for e in self.events if e.day == day), key=lambda e: e.start)

    def to_json(self):
        return json.dumps([e.to_dict() for e in self.events])

    @classmethod
    def from_json(cls, text):
        schedule = cls()
        schedule.events = [Event.from_dict(d) for d in json.loads(text)]
        return schedule


def describe(event):
    text = f"{event.day} {event.start}-{event.end} {event.name}"
    if event.location:
        text += f" @ {event.location}"
    return text
