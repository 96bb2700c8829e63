"""How many candidate test runs go at once, and which waiting run starts next.

``Slots`` is a semaphore whose waiters start in order, except that the runs of a normalised form
the vote is waiting for (``hurry``) go first. Repair queues every template candidate before the
first sample is drawn; when a sample agrees with a template near the end of that queue, the vote
waits for that one run, and without ``hurry`` it would wait behind every template queued before it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

__all__ = ["Slots"]


class Slots:
    """At most ``size`` test runs at once; waiting runs start first come, first served, hurried forms first."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiting: list[tuple[str, asyncio.Future[None]]] = []
        self._hurried: set[str] = set()

    def hurry(self, key: str) -> None:
        """The runs of the form ``key`` that are waiting, or will wait, start before the others."""
        self._hurried.add(key)

    @contextlib.asynccontextmanager
    async def slot(self, key: str) -> AsyncIterator[None]:
        """Hold one slot for a run of the form ``key`` (cancelling the waiting task gives up its place)."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.append((key, turn))
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():  # given the slot, then cancelled: pass it on
                    self._release()
                else:  # still waiting (unless ``_release`` already dropped it)
                    self._waiting = [waiter for waiter in self._waiting if waiter[1] is not turn]
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiting:
            hurried = (i for i, (key, _) in enumerate(self._waiting) if key in self._hurried)
            _, turn = self._waiting.pop(next(hurried, 0))
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1
