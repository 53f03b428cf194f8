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
    return f"\x1b[{code}m{text}\x1b[0m"


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
    return "\n".join(lines)
