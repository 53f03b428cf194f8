# ruff: noqa: E501  (file contents are data)
"""The two small projects the demo sessions work on, as they are when each session starts."""

from __future__ import annotations

WEATHERAPP_CWD = "/home/user/projects/weatherapp"
SHORTLINKS_CWD = "/home/user/projects/shortlinks"

WEATHERAPP: dict[str, str] = {}
SHORTLINKS: dict[str, str] = {}

WEATHERAPP["pyproject.toml"] = """\
[project]
name = "weatherapp"
version = "0.3.1"
description = "Current weather and forecasts in your terminal"
requires-python = ">=3.11"
dependencies = ["httpx>=0.27"]

[project.scripts]
weather = "weatherapp.cli:main"

[dependency-groups]
dev = ["pytest>=8", "respx>=0.21"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"
"""

WEATHERAPP["README.md"] = """\
# weatherapp

Current weather and short forecasts from [Open-Meteo](https://open-meteo.com), no API key needed.

```
$ weather now berlin
Berlin: 6.8°C, wind 14.0 km/h, overcast
$ weather forecast lisbon --days 3
```

Responses are cached in `~/.cache/weatherapp` (10 minutes for current conditions, 3 hours for
forecasts).

## Development

```
uv sync
uv run pytest
```
"""

WEATHERAPP["src/weatherapp/__init__.py"] = '__version__ = "0.3.1"\n'

WEATHERAPP["src/weatherapp/cache.py"] = '''\
"""A tiny JSON file cache for API responses."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

DEFAULT_TTL = 600  # seconds


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "weatherapp"


def _key_path(key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / f"{digest}.json"


def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    if time.monotonic() - entry["fetched_at"] > ttl:
        return None
    return entry["data"]


def put(key: str, data: dict) -> None:
    path = _key_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"fetched_at": time.monotonic(), "data": data}
    path.write_text(json.dumps(entry))
'''

WEATHERAPP["src/weatherapp/api.py"] = '''\
"""Thin client for the Open-Meteo geocoding and forecast APIs."""

from __future__ import annotations

import httpx

from . import cache

GEOCODE_URL = "https://geocoding-api.open-meteo.com/v1/search"
FORECAST_URL = "https://api.open-meteo.com/v1/forecast"


class CityNotFound(Exception):
    pass


def geocode(city: str) -> tuple[float, float, str]:
    key = f"geo:{city.lower()}"
    hit = cache.get(key, ttl=30 * 24 * 3600)
    if hit is None:
        resp = httpx.get(GEOCODE_URL, params={"name": city, "count": 1}, timeout=10)
        resp.raise_for_status()
        results = resp.json().get("results") or []
        if not results:
            raise CityNotFound(city)
        hit = results[0]
        cache.put(key, hit)
    return hit["latitude"], hit["longitude"], hit["name"]


def current(city: str) -> dict:
    lat, lon, name = geocode(city)
    key = f"now:{lat:.2f},{lon:.2f}"
    data = cache.get(key)
    if data is None:
        resp = httpx.get(
            FORECAST_URL,
            params={"latitude": lat, "longitude": lon, "current": "temperature_2m,wind_speed_10m,weather_code"},
            timeout=10,
        )
        resp.raise_for_status()
        data = resp.json()
        cache.put(key, data)
    return {"name": name, **data["current"]}


def forecast(city: str, days: int = 3) -> dict:
    lat, lon, name = geocode(city)
    key = f"daily:{lat:.2f},{lon:.2f}:{days}"
    data = cache.get(key, ttl=3 * 3600)
    if data is None:
        resp = httpx.get(
            FORECAST_URL,
            params={
                "latitude": lat,
                "longitude": lon,
                "daily": "temperature_2m_min,temperature_2m_max,weather_code",
                "forecast_days": days,
                "timezone": "auto",
            },
            timeout=10,
        )
        resp.raise_for_status()
        data = resp.json()
        cache.put(key, data)
    return {"name": name, **data}
'''

WEATHERAPP["src/weatherapp/format.py"] = '''\
"""Plain-text rendering of API results."""

from __future__ import annotations

import os
import sys

WEATHER_CODES = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    61: "light rain",
    63: "rain",
    71: "light snow",
    95: "thunderstorm",
}


def describe(code: int) -> str:
    return WEATHER_CODES.get(code, f"code {code}")


def _color(text: str, temp: float) -> str:
    if not sys.stdout.isatty() or os.environ.get("NO_COLOR"):
        return text
    code = 34 if temp < 5 else 33 if temp < 25 else 31
    return f"\\x1b[{code}m{text}\\x1b[0m"


def current(data: dict) -> str:
    return (
        f"{data['name']}: {data['temperature_2m']:.1f}°C, "
        f"wind {data['wind_speed_10m']:.1f} km/h, {describe(data['weather_code'])}"
    )


def forecast_table(data: dict) -> str:
    daily = data["daily"]
    rows = [("date", "min", "max", "conditions")]
    for day, lo, hi, code in zip(
        daily["time"], daily["temperature_2m_min"], daily["temperature_2m_max"], daily["weather_code"]
    ):
        rows.append((day, _color(f"{lo:.0f}°", lo), _color(f"{hi:.0f}°", hi), describe(code)))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [data["name"]]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return "\\n".join(lines)
'''

WEATHERAPP["src/weatherapp/cli.py"] = '''\
"""Command line entry point: ``weather now CITY`` and ``weather forecast CITY``."""

from __future__ import annotations

import argparse
import sys

from . import api, format


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="weather", description="Weather in your terminal.")
    sub = parser.add_subparsers(dest="command", required=True)

    now = sub.add_parser("now", help="current conditions")
    now.add_argument("city")

    fc = sub.add_parser("forecast", help="daily forecast")
    fc.add_argument("city")
    fc.add_argument("--days", type=int, default=3)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "now":
            print(format.current(api.current(args.city)))
        else:
            print(format.forecast_table(api.forecast(args.city, days=args.days)))
    except api.CityNotFound as exc:
        print(f"weather: no such city: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

WEATHERAPP["tests/test_cache.py"] = """\
from weatherapp import cache


def test_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("k", {"a": 1})
    assert cache.get("k") == {"a": 1}


def test_missing_key(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.get("nope") is None


def test_expired(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("k", {"a": 1})
    assert cache.get("k", ttl=-1) is None
"""

WEATHERAPP["tests/test_format.py"] = """\
from weatherapp import format

DAILY = {
    "name": "Lisbon",
    "daily": {
        "time": ["2026-03-16", "2026-03-17"],
        "temperature_2m_min": [11.2, 12.0],
        "temperature_2m_max": [18.9, 21.4],
        "weather_code": [1, 61],
    },
}


def test_describe_unknown_code():
    assert format.describe(42) == "code 42"


def test_current():
    data = {"name": "Berlin", "temperature_2m": 6.84, "wind_speed_10m": 14.0, "weather_code": 3}
    assert format.current(data) == "Berlin: 6.8°C, wind 14.0 km/h, overcast"


def test_forecast_table():
    assert format.forecast_table(DAILY).splitlines() == [
        "Lisbon",
        "date        min  max  conditions",
        "2026-03-16  11°  19°  mainly clear",
        "2026-03-17  12°  21°  light rain",
    ]
"""

WEATHERAPP["tests/test_cli.py"] = """\
import pytest

from weatherapp import api, cli


@pytest.fixture
def fake_api(monkeypatch):
    monkeypatch.setattr(
        api, "current", lambda city: {"name": "Berlin", "temperature_2m": 6.8, "wind_speed_10m": 14.0, "weather_code": 3}
    )

    def unknown(city, days=3):
        raise api.CityNotFound(city)

    monkeypatch.setattr(api, "forecast", unknown)


def test_now(fake_api, capsys):
    assert cli.main(["now", "berlin"]) == 0
    assert capsys.readouterr().out == "Berlin: 6.8°C, wind 14.0 km/h, overcast\\n"


def test_unknown_city(fake_api, capsys):
    assert cli.main(["forecast", "atlantis"]) == 2
    assert "no such city: atlantis" in capsys.readouterr().err


def test_requires_command():
    with pytest.raises(SystemExit):
        cli.main([])
"""

# --------------------------------------------------------------------------------------------------

SHORTLINKS["pyproject.toml"] = """\
[project]
name = "shortlinks"
version = "1.4.0"
description = "A small self-hosted link shortener"
requires-python = ">=3.12"
dependencies = ["flask>=3.0", "gunicorn>=22"]

[dependency-groups]
dev = ["pytest>=8"]
"""

SHORTLINKS["README.md"] = """\
# shortlinks

A small self-hosted link shortener: one Flask app, one SQLite file.

    POST /api/links         {"url": "https://...", "slug": "optional"}  -> 201 {"slug", "url"}
    GET  /<slug>            -> 302 to the url
    GET  /api/links/<slug>/stats

## Running

    uv run flask --app shortlinks.app run

## Configuration

`DATABASE` (path of the SQLite file) and `RATE_LIMIT` (e.g. `30/minute`), see `shortlinks/config.py`.
"""

SHORTLINKS["shortlinks/__init__.py"] = ""

SHORTLINKS["shortlinks/config.py"] = '''\
"""Settings, read from the environment (``SHORTLINKS_*``)."""

from __future__ import annotations

import os


def from_env() -> dict:
    return {
        "DATABASE": os.environ.get("SHORTLINKS_DATABASE", "shortlinks.sqlite3"),
        # "<count>/<second|minute|hour>", per client IP, POST requests only
        "RATE_LIMIT": os.environ.get("SHORTLINKS_RATE_LIMIT", "30/minute"),
        # Trust X-Forwarded-For (only behind a proxy you control)
        "TRUST_PROXY": os.environ.get("SHORTLINKS_TRUST_PROXY", "0") == "1",
    }
'''

SHORTLINKS["shortlinks/app.py"] = '''\
"""HTTP API: create short links and redirect to their targets."""

from __future__ import annotations

from flask import Flask, abort, jsonify, redirect, request

from . import config, db, ratelimit, slugs


def create_app(overrides: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(config.from_env())
    if overrides:
        app.config.update(overrides)
    db.init_app(app)
    ratelimit.init_app(app)

    @app.post("/api/links")
    def create_link():
        body = request.get_json(force=True)
        url = body.get("url", "")
        if not url.startswith(("http://", "https://")):
            return jsonify(error="url must be http(s)"), 400
        slug = body.get("slug") or slugs.random_slug()
        if not slugs.is_valid(slug):
            return jsonify(error="invalid slug"), 400
        if db.get_link(slug) is not None:
            return jsonify(error="slug already taken"), 409
        db.add_link(slug, url)
        resp = jsonify(slug=slug, url=url)
        resp.status_code = 201
        resp.headers["Location"] = f"/{slug}"
        return resp

    @app.get("/<slug>")
    def follow(slug: str):
        link = db.get_link(slug)
        if link is None:
            abort(404)
        db.record_hit(slug)
        return redirect(link["url"], code=302)

    @app.get("/api/links/<slug>/stats")
    def stats(slug: str):
        return jsonify(slug=slug, hits=db.hit_count(slug))

    @app.get("/healthz")
    def healthz():
        return jsonify(status="ok")

    return app
'''

SHORTLINKS["shortlinks/slugs.py"] = '''\
"""Short link slugs."""

from __future__ import annotations

import secrets
import string

ALPHABET = string.ascii_lowercase + string.digits


def random_slug(length: int = 7) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def is_valid(slug: str) -> bool:
    return 3 <= len(slug) <= 32 and all(c.isalnum() or c == "-" for c in slug)
'''

SHORTLINKS["shortlinks/db.py"] = '''\
"""SQLite storage: one connection per request."""

from __future__ import annotations

import sqlite3
import time

from flask import Flask, current_app, g

SCHEMA = """
create table if not exists links (slug text primary key, url text not null, created real not null);
create table if not exists hits (slug text not null, at real not null);
create index if not exists hits_slug on hits (slug);
"""


def conn() -> sqlite3.Connection:
    if "db" not in g:
        g.db = sqlite3.connect(current_app.config["DATABASE"])
        g.db.row_factory = sqlite3.Row
    return g.db


def init_app(app: Flask) -> None:
    with app.app_context():
        conn().executescript(SCHEMA)

    @app.teardown_appcontext
    def _close(exc):
        db = g.pop("db", None)
        if db is not None:
            db.close()


def add_link(slug: str, url: str) -> None:
    with conn() as c:
        c.execute("insert into links values (?, ?, ?)", (slug, url, time.time()))


def get_link(slug: str) -> sqlite3.Row | None:
    return conn().execute("select * from links where slug = ?", (slug,)).fetchone()


def record_hit(slug: str) -> None:
    with conn() as c:
        c.execute("insert into hits values (?, ?)", (slug, time.time()))


def hit_count(slug: str) -> int:
    return conn().execute("select count(*) from hits where slug = ?", (slug,)).fetchone()[0]
'''

SHORTLINKS["shortlinks/ratelimit.py"] = '''\
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
'''

SHORTLINKS["tests/conftest.py"] = """\
import pytest

from shortlinks.app import create_app


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "test.sqlite3"), "RATE_LIMIT": "1000/minute"})
    return app.test_client()
"""

SHORTLINKS["tests/test_api.py"] = """\
def test_create_random_slug(client):
    resp = client.post("/api/links", json={"url": "https://example.org/a"})
    assert resp.status_code == 201
    assert len(resp.json["slug"]) == 7


def test_create_custom_slug(client):
    resp = client.post("/api/links", json={"url": "https://example.org/sale", "slug": "Summer-Sale"})
    assert resp.status_code == 201
    assert resp.headers["Location"] == "/Summer-Sale"


def test_duplicate_slug(client):
    client.post("/api/links", json={"url": "https://example.org/a", "slug": "taken"})
    resp = client.post("/api/links", json={"url": "https://example.org/b", "slug": "taken"})
    assert resp.status_code == 409


def test_rejects_non_http_url(client):
    resp = client.post("/api/links", json={"url": "javascript:alert(1)"})
    assert resp.status_code == 400


def test_follow(client):
    client.post("/api/links", json={"url": "https://example.org/docs", "slug": "docs"})
    resp = client.get("/docs")
    assert resp.status_code == 302
    assert resp.headers["Location"] == "https://example.org/docs"


def test_stats(client):
    client.post("/api/links", json={"url": "https://example.org/docs", "slug": "docs"})
    client.get("/docs")
    client.get("/docs")
    assert client.get("/api/links/docs/stats").json == {"slug": "docs", "hits": 2}
"""

SHORTLINKS["tests/test_ratelimit.py"] = """\
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
"""
