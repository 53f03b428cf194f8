from shortlinks.ratelimit import RateLimiter, parse_rate


def test_parse_rate():
    assert parse_rate("30/minute") == (0.5, 30)


def test_burst_then_block(monkeypatch):
    now = [100.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])
    limiter = RateLimiter(rate=1.0, burst=2)
    assert limiter.allow("a")[0]
    assert limiter.allow("a")[0]
    ok, retry = limiter.allow("a")
    assert not ok and retry == 1.0
    now[0] += 1.0
    assert limiter.allow("a")[0]
