def get(key: str, ttl: int = DEFAULT_TTL) -> dict | None:
    path = _key_path(key)
    try:
        entry = json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    if time.time() - entry["fetched_at"] > ttl:
        return None
    return entry["data"]