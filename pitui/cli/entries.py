"""``pitui search --entries``: the messages that match, in every listed session, printed one hit
a line (or as one JSON array). The searching is the catalog's
(:mod:`pitui.store.catalog.entry_search`)."""

from __future__ import annotations

import sys
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from pitui.cli.resolve import CliError
from pitui.safe_text import safe
from pitui.store.jsonl import dumps

if TYPE_CHECKING:
    from pitui.store.catalog import Catalog, SessionInfo

__all__ = ["run"]


def run(catalog: Catalog, sessions: list[SessionInfo], query: str, as_json: bool) -> int:
    """Print every hit of ``query`` in ``sessions``, best first; 1 when there is none."""
    from pitui.store.catalog.entry_search import EntrySearch
    from pitui.store.query import QueryError

    try:
        last = deque(EntrySearch(catalog).search(query, sessions), maxlen=1)  # the final results
    except QueryError as error:
        raise CliError(str(error)) from None
    hits = last[0].hits if last else []
    if as_json:
        sys.stdout.buffer.write(dumps([hit.to_json() for hit in hits]) + b"\n")
        return 0
    if not hits:
        print("No matching entries", file=sys.stderr)
        return 1
    _print(hits)
    return 0


def _print(hits: list[Any]) -> None:
    from pitui.ui.format import format_age  # (rich: not for the commands that print JSON)

    now_ms = time.time() * 1000
    for hit in hits:
        info = hit.info
        title = " ".join(safe(hit.title).split())
        title = title if len(title) <= 60 else title[:59] + "…"
        print(f"{safe(info.path)}  {safe(info.id_text)}")
        print(f"  {safe(hit.entry_id or '-'):8}  {hit.role:9}  {format_age(hit.time, now_ms):>4}  {title}")
        print(f"    {' '.join(safe(hit.snippet).split())}")
