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
