"""The timestamps and session ids pi writes."""

from __future__ import annotations

import os
import time
import uuid

from .jsvalues import iso_ms


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
