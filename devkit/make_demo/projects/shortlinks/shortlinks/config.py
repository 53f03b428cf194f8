"""Settings, read from the environment (``SHORTLINKS_*``)."""

from __future__ import annotations

import os


def from_env() -> dict:
    return {
        "DATABASE": os.environ.get("SHORTLINKS_DATABASE", "shortlinks.sqlite3"),
        # "<count>/<second|minute|hour>", per client IP, POST requests only
        "RATE_LIMIT": os.environ.get("SHORTLINKS_RATE_LIMIT", "30/minute"),
        # Trust X-Forwarded-For (only behind a proxy you control)
        "TRUST_PROXY": os.environ.get("SHORTLINKS_TRUST_PROXY", "0") == "1",
    }
