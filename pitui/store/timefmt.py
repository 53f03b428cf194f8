"""Timestamps as pi writes and reads them."""

from __future__ import annotations

import math
import os
import re
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from .jsonl import MISSING

_ISO_DATE_ONLY = re.compile(r"^[+-]?\d{4,6}(-\d\d(-\d\d)?)?$")


def now_iso() -> str:
    """``new Date().toISOString()``: UTC, three fractional digits, ``Z``."""
    return iso_from_ms(time.time_ns() // 1_000_000)


def iso_from_ms(ms: float) -> str:
    ms = int(ms)
    moment = datetime.fromtimestamp(ms // 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms % 1000:03d}Z"


def date_ms(value: Any) -> float:
    """``new Date(value).getTime()`` for the values session files hold; NaN when invalid."""
    if value is MISSING:
        return math.nan
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return math.nan
    text = value.strip()
    if not text:
        return math.nan
    try:
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        moment = datetime.fromisoformat(text)
    except ValueError:
        return math.nan
    if moment.tzinfo is None:
        # Date-time forms without an offset are local time in JavaScript; date-only forms are UTC.
        moment = moment.replace(tzinfo=UTC) if _ISO_DATE_ONLY.match(value.strip()) else moment.astimezone()
    return moment.timestamp() * 1000.0


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
