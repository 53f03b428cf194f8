from weatherapp import api, cache, cli


def test_cache_clear(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for key in ("a", "b", "c"):
        cache.put(key, {})
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == "Removed 3 cached responses\n"
    assert cache.get("a") is None


def test_no_cache_flag(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("now:52.52,13.41", {"current": {}})
    seen = []
    monkeypatch.setattr(api, "current", lambda city: seen.append(api.use_cache) or {
        "name": "Berlin", "temperature_2m": 1.0, "wind_speed_10m": 2.0, "weather_code": 0})
    cli.main(["--no-cache", "now", "berlin"])
    assert seen == [False]


def test_cache_clear_singular(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.put("a", {})
    cli.main(["cache", "clear"])
    assert capsys.readouterr().out == "Removed 1 cached response(s)\n"
