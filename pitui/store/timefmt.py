"""The timestamps and session ids pi writes."""

from __future__ import annotations

import math
import os
import time
import uuid

from pitui.store.js import iso_ms


def now_iso() -> str:
    """``new Date().toISOString()``: UTC, three fractional digits, ``Z``."""
    stamp = iso_ms(time.time_ns() // 1_000_000)
    assert stamp is not None
    return stamp


def uuid7() -> str:
    """A UUIDv7 (time-ordered), the session id newer pi writes."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


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
