"""A per-client token bucket, kept in memory (one process is enough for one small box)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from flask import Flask, jsonify, request


@dataclass
class Bucket:
    tokens: float
    updated: float


class RateLimiter:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate  # tokens per second
        self.burst = burst
        self._buckets: dict[str, Bucket] = {}
        self._lock = threading.Lock()

    def allow(self, client: str) -> tuple[bool, float]:
        """Take one token for ``client``; return (allowed, seconds until the next token)."""
        now = time.monotonic()
        with self._lock:
            b = self._buckets.get(client)
            if b is None:
                b = self._buckets[client] = Bucket(tokens=self.burst, updated=now)
            b.tokens = min(self.burst, b.tokens + (now - b.updated) * self.rate)
            b.updated = now
            if b.tokens >= 1:
                b.tokens -= 1
                return True, 0.0
            return False, (1 - b.tokens) / self.rate


def parse_rate(spec: str) -> tuple[float, int]:
    """``"30/minute"`` -> (0.5 tokens per second, burst of 30)."""
    count, _, unit = spec.partition("/")
    seconds = {"second": 1, "minute": 60, "hour": 3600}[unit]
    return int(count) / seconds, int(count)


def client_id() -> str:
    if current_trust_proxy():
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    return request.remote_addr or "?"


def current_trust_proxy() -> bool:
    from flask import current_app

    return bool(current_app.config.get("TRUST_PROXY"))


def init_app(app: Flask) -> None:
    rate, burst = parse_rate(app.config["RATE_LIMIT"])
    limiter = RateLimiter(rate, burst)

    @app.before_request
    def _limit():
        if request.method != "POST":
            return None
        ok, retry = limiter.allow(client_id())
        if ok:
            return None
        resp = jsonify(error="rate limit exceeded", retry_after=round(retry, 1))
        resp.status_code = 429
        resp.headers["Retry-After"] = str(max(1, round(retry)))
        return resp
