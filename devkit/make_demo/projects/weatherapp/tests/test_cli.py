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
    assert capsys.readouterr().out == "Berlin: 6.8°C, wind 14.0 km/h, overcast\n"


def test_unknown_city(fake_api, capsys):
    assert cli.main(["forecast", "atlantis"]) == 2
    assert "no such city: atlantis" in capsys.readouterr().err


def test_requires_command():
    with pytest.raises(SystemExit):
        cli.main([])
