"""A token-bucket rate limiter per client key. The clock is injected so that tests control time."""

import time
from dataclasses import dataclass


@dataclass
class Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Allows ``rate`` requests per second on average, with bursts of up to ``burst`` requests."""

    def __init__(self, rate, burst, clock=time.monotonic):
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets = {}

    def _refill(self, key):
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(tokens=self.burst, updated=now)
        elapsed = max(0.0, now - bucket.updated)
        bucket.tokens = min(self.burst, bucket.tokens + elapsed * self.rate)
        bucket.updated = now
        return bucket

    def allow(self, key, cost=1):
        """Take ``cost`` tokens if the bucket has them; returns whether the request may go ahead."""
        bucket = self._refill(key)
        if bucket.tokens >= cost:
            bucket.tokens -= cost
            return True
        return False

    def retry_after(self, key, cost=1):
        """Seconds until ``cost`` tokens are available (0.0 when they are now)."""
        bucket = self._refill(key)
        missing = cost - bucket.tokens
        return 0.0 if missing <= 0 else missing / self.rate

    def remaining(self, key):
        return int(self._refill(key).tokens)


class FakeClock:
    def __init__(self, start=0.0):
        self.now = start

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds
