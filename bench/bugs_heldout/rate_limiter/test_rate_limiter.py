import pytest

from rate_limiter import FakeClock, RateLimiter


@pytest.fixture
def clock():
    return FakeClock()


def test_burst_then_refused(clock):
    limiter = RateLimiter(rate=1, burst=3, clock=clock)
    assert [limiter.allow("a") for _ in range(4)] == [True, True, True, False]


def test_tokens_come_back_over_time(clock):
    limiter = RateLimiter(rate=2, burst=2, clock=clock)
    limiter.allow("a")
    limiter.allow("a")
    clock.advance(0.5)
    assert limiter.allow("a")
    assert not limiter.allow("a")


def test_idle_time_does_not_exceed_burst(clock):
    limiter = RateLimiter(rate=1, burst=2, clock=clock)
    clock.advance(100)
    assert limiter.remaining("a") == 2
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]


def test_keys_are_independent(clock):
    limiter = RateLimiter(rate=1, burst=1, clock=clock)
    assert limiter.allow("a")
    assert limiter.allow("b")
    assert not limiter.allow("a")


def test_retry_after(clock):
    limiter = RateLimiter(rate=4, burst=4, clock=clock)
    assert limiter.retry_after("a") == 0.0
    limiter.allow("a", cost=4)
    assert limiter.retry_after("a", cost=2) == pytest.approx(0.5)


def test_invalid_settings():
    with pytest.raises(ValueError, match="rate"):
        RateLimiter(rate=0, burst=1)
