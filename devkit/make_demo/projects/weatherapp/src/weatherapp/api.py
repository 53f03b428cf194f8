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
