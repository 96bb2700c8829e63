"""Calendar events."""
from dataclasses import dataclass


@dataclass
class Event:
    name: str
    day: str  # "2024-05-01"
    start: str  # "09:00"
    end: str  # "10:30"
    location: str = ""

    def to_dict(self):
        return {
            "name": self.name,
            "day": self.day,
            "start": self.start,
            "end": self.end,
            "location": self.location,
        }

    @classmethod
    def from_dict(cls, data):
        return cls(data["name"], data["day"], data["start"], data["end"], data.get("location", ""))

    def overlaps(self, other):
        return self.day == other.day and self.start < other.end and other.start < self.end
