"""Short link slugs."""

from __future__ import annotations

import secrets
import string

ALPHABET = string.ascii_lowercase + string.digits


def random_slug(length: int = 7) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def is_valid(slug: str) -> bool:
    return 3 <= len(slug) <= 32 and all(c.isalnum() or c == "-" for c in slug)
