"""Cache entries must expire even when the machine rebooted in between."""

import time

from weatherapp import cache


def test_entry_expires_after_reboot(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    # Written late in a long uptime...
    monkeypatch.setattr(time, "monotonic", lambda: 86_400.0)
    monkeypatch.setattr(time, "time", lambda: 1_773_600_000.0)
    cache.put("now:52.52,13.41", {"temperature_2m": 14.2})
    # ...and read back twelve hours later, two minutes after a reboot.
    monkeypatch.setattr(time, "monotonic", lambda: 120.0)
    monkeypatch.setattr(time, "time", lambda: 1_773_643_200.0)
    assert cache.get("now:52.52,13.41", ttl=600) is None
