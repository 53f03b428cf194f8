"""The ids and timestamps pi writes: entry ids, the stable ids of v1 entries, session ids, now."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from typing import Any

from pitui.store.js import iso_ms


def generate_id(taken: set[str] | dict[Any, Any]) -> str:
    """pi's ``generateId``: 8 hex characters not yet used in the session."""
    for _ in range(100):
        candidate = uuid.uuid4().hex[:8]
        if candidate not in taken:
            if isinstance(taken, set):
                taken.add(candidate)
            return candidate
    return str(uuid.uuid4())


def stable_id(seed: str, index: int, taken: set[str]) -> str:
    """An id for a v1 entry that is the same on every read (pi draws random ones), so an id
    shown to the user still names the entry in the next command, and after the file is
    rewritten as v3."""
    attempt = 0
    while True:
        key = f"{seed}:{index}:{attempt}".encode()
        candidate = hashlib.blake2b(key, digest_size=4).hexdigest()
        if candidate not in taken:
            taken.add(candidate)
            return candidate
        attempt += 1


def uuid7(ms: int | None = None, rand: int | None = None) -> str:
    """A UUIDv7 (time-ordered), the session id newer pi writes.

    ``ms`` is the time (now when left out); ``rand`` the random bits (fresh ones when left out),
    of which the low 74 are used: bits 62-73 are ``rand_a``, bits 0-61 ``rand_b``. A seeded
    generator passes ``(rng.getrandbits(12) << 62) | rng.getrandbits(62)``.
    """
    if ms is None:
        ms = time.time_ns() // 1_000_000
    if rand is None:
        rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= ((rand >> 62) & 0xFFF) << 64
    value |= 0b10 << 62
    value |= rand & ((1 << 62) - 1)
    return str(uuid.UUID(int=value))


def now_iso() -> str:
    """``new Date().toISOString()``: UTC, three fractional digits, ``Z``."""
    stamp = iso_ms(time.time_ns() // 1_000_000)
    assert stamp is not None
    return stamp
