"""A tiny JSON file cache for API responses."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

DEFAULT_TTL = 600  # seconds


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "weatherapp"


def _key_path(key: str) -> Path:
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return cache_dir() / f"{digest}.json"


def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    if time.monotonic() - entry["fetched_at"] > ttl:
        return None
    return entry["data"]


def put(key: str, data: dict) -> None:
    path = _key_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"fetched_at": time.monotonic(), "data": data}
    path.write_text(json.dumps(entry))
