"""List links whose slugs can no longer be reached after the slug rules changed.

usage: uv run python scripts/check_slugs.py [shortlinks.sqlite3]
"""

import sqlite3
import sys

from shortlinks import slugs


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else "shortlinks.sqlite3"
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    bad = 0
    for slug, url in db.execute("select slug, url from links order by slug"):
        if slugs.normalize(slug) != slug or not slugs.is_valid(slug):
            print(f"{slug}\t{url}")
            bad += 1
    print(f"{bad} unreachable link(s)", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
