def clear() -> int:
    """Delete every cached response; return how many were removed."""
    removed = 0
    for path in cache_dir().glob("*.json"):
        path.unlink(missing_ok=True)
        removed += 1
    return removed


def put(key: str, data: dict) -> None: