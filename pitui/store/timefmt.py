"""How long ago a time was, as pi's session picker says it."""

from __future__ import annotations

import math


def format_age(ms: float | None, now_ms: float) -> str:
    """How long ago ``ms`` was, as pi's session picker says it (``formatSessionDate``, floored):
    now, 5m, 3h, 2d, 1w, 4mo, 2y. An unknown time is ``?`` (pi prints ``NaNy``)."""
    if ms is None or math.isnan(ms):
        return "?"
    minutes = math.floor((now_ms - ms) / 60_000)
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h"
    days = hours // 24
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"
