"""Cache entries must expire even when the clock or the machine misbehaves."""

import json
from datetime import datetime, timedelta, timezone

from weatherapp import cache

T0 = datetime(2026, 3, 16, 8, 0, tzinfo=timezone.utc)


def at(monkeypatch, when):
    monkeypatch.setattr(cache, "_now", lambda: when)


def test_fresh_entry_is_returned(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0)
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0 + timedelta(minutes=9))
    assert cache.get("k", ttl=600) == {"t": 14.2}


def test_entry_expires(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0)
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0 + timedelta(hours=12))
    assert cache.get("k", ttl=600) is None


def test_old_float_format_is_expired(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache._key_path("k").parent.mkdir(parents=True)
    cache._key_path("k").write_text(json.dumps({"fetched_at": 86400.0, "data": {"t": 1}}))
    assert cache.get("k") is None


def test_future_timestamp_is_expired(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    at(monkeypatch, T0 + timedelta(days=1))
    cache.put("k", {"t": 14.2})
    at(monkeypatch, T0)  # clock set back
    assert cache.get("k") is None
