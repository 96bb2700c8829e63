"""Give every meeting a room: reuse the lowest-numbered room that is free when the meeting starts."""

import heapq
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Meeting:
    start: int
    end: int
    title: str

    def __post_init__(self):
        if self.end <= self.start:
            raise ValueError(f"meeting {self.title!r} ends before it starts")


def allocate(meetings):
    """Map each meeting title to a room number (0, 1, ...); a room is free again at its meeting's end time."""
    titles = [m.title for m in meetings]
    if len(set(titles)) != len(titles):
        raise ValueError("meeting titles must be unique")
    free_rooms = []  # heap of room numbers
    in_use = []  # heap of (end time, room number)
    opened = 0
    rooms = {}
    for meeting in sorted(meetings):
        while in_use and in_use[0][0] <= meeting.start:
            _, room = heapq.heappop(in_use)
            heapq.heappush(free_rooms, room)
        if free_rooms:
            room = heapq.heappop(free_rooms)
        else:
            room = opened
            opened += 1
        rooms[meeting.title] = room
        heapq.heappush(in_use, (meeting.end, room))
    return rooms


def rooms_needed(meetings):
    return len(set(allocate(meetings).values()))


def timetable(meetings):
    """For each room, its meetings' titles in time order."""
    rooms = allocate(meetings)
    table = {}
    for meeting in sorted(meetings):
        table.setdefault(rooms[meeting.title], []).append(meeting.title)
    return table


def busiest_moment(meetings):
    """(time, number of meetings running) at the earliest moment with the most meetings at once."""
    events = sorted([(m.start, 1) for m in meetings] + [(m.end, -1) for m in meetings])
    best, running = (None, 0), 0
    for time, delta in events:
        running += delta
        if running > best[1]:
            best = (time, running)
    return best
