def _now() -> datetime:
    return datetime.now(timezone.utc)


def _age(fetched_at: object) -> float | None:
    """Seconds since ``fetched_at`` (an ISO-8601 string); None if unusable."""
    if not isinstance(fetched_at, str):
        return None  # the old float format (time.monotonic()) counts as expired
    try:
        then = datetime.fromisoformat(fetched_at)
    except ValueError:
        return None
    if then.tzinfo is None:
        return None
    return (_now() - then).total_seconds()


def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    age = _age(entry.get("fetched_at"))
    if age is None or age < 0 or age > ttl:
        return None
    return entry["data"]