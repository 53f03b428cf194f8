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
