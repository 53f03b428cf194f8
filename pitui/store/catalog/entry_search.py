"""Entry search: the user and assistant messages, in many sessions, that match a query.

pi's ``/resume`` finds sessions; this finds entries. The query is pi's (``parse_search_query``:
words, ``"phrase"``, ``re:``) and is applied to each message's text on its own, as pi's
``matchSession`` applies it to a session's messages field (``match_fields`` on a session whose
only field is that one message): a word matches when it is in the message (case ignored; pi
1.6.0 matches a word in the messages only as a substring, its scattered-letters match being for
names and folders, which a message does not have), a phrase when its words are in the message
in order with any whitespace between them, a ``re:`` pattern when it finds a match in the
message. Every token must match the same message. The texts are those the catalog stores: the
text blocks of each user and assistant message, joined by spaces.

Ranking: pi's score first (every hit of a query scores the same under pi's rules, since each
matches in the messages field), then newest first (the message's time), then the session's
order and the later message in the file.

The sessions are searched newest first, a batch at a time, and :meth:`EntrySearch.search`
yields the best hits so far after each batch, so a cold cache shows hits as they come. With a
``limit``, it stops once that many hits are found that no session left can beat: a session's
``modified`` is the time of its newest message, so none of its messages is newer.

The full-text index skips the sessions that cannot match: those whose indexed text lacks a
phrase's word or a word of three characters or more (a word is a substring of the message,
so of the session's text the index holds). A regex is tried on every message.
"""

from __future__ import annotations

import math
import sqlite3
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from pitui.store.catalog.db import stored_text
from pitui.store.catalog.index import prefilter
from pitui.store.catalog.model import SearchCancelled, SessionInfo
from pitui.store.catalog.search import cut_snippet
from pitui.store.fuzzy import normalize_whitespace_lower
from pitui.store.js import iso_ms, js_lower
from pitui.store.query import (
    TIER_TEXT,
    TIER_WEIGHT,
    ParsedQuery,
    SessionFields,
    match_fields,
    match_spans,
    parse_search_query,
    phrase_chunks,
)

if TYPE_CHECKING:
    from pitui.store.catalog.catalog import Catalog
    from pitui.store.catalog.db import CatalogDB

__all__ = ["BATCH", "EntryHit", "EntryResults", "EntrySearch", "session_title"]

# Sessions searched between two yields of results.
BATCH = 48
# Bytes of session text (and its lower-cased copy) kept in memory between searches, in all.
TEXT_CACHE_BYTES = 160 << 20
REGEX_SCORE = TIER_TEXT * TIER_WEIGHT  # pi's score of a regex found in the messages


def session_title(info: SessionInfo) -> str:
    """What the picker calls a session: its name, else its first message."""
    return info.name or info.first_message


class EntryHit(Struct):
    """One matching message: its session's row, where it is, pi's score and a snippet.

    ``time`` is ms since 1970 (the message's timestamp, else the entry's), None when the file
    has neither. ``snippet`` is one line around the first match, ``spans`` what to highlight in
    it."""

    info: SessionInfo
    entry_id: str | None
    role: str  # "user" or "assistant"
    time: float | None
    score: float
    offset: int  # byte offset of the entry's line
    text: str = field(default="")  # the message's text, as searched
    snippet: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return session_title(self.info)

    def to_json(self) -> dict[str, Any]:
        info = self.info
        return {
            "path": info.path,
            "sessionId": info.id_text,
            "title": self.title,
            "cwd": info.cwd,
            "entryId": self.entry_id,
            "role": self.role,
            "time": iso_ms(self.time),
            "snippet": self.snippet,
            "spans": [list(span) for span in self.spans],
        }


class EntryResults(Struct):
    """The best hits so far (best first), how many sessions are searched of how many, whether
    the search is over, and whether it stopped at the limit with more hits left unlooked-for."""

    hits: list[EntryHit]
    searched: int
    total: int
    done: bool
    more: bool = False


class _Texts:
    """A session's stored messages: rows ``(offset, entry id, assistant, length, time)``, their
    texts joined by spaces, that lower-cased, and where each message starts in both."""

    __slots__ = ("key", "lower", "rows", "same_length", "size", "starts", "text")

    def __init__(self, key: tuple[int, int], rows: list[Any], text: str) -> None:
        self.key = key
        self.rows = rows
        self.text = text
        self.lower = js_lower(text)
        # Lower-casing can change a length ("İ" becomes two characters): then each message is
        # looked at on its own, not through offsets into the lower-cased whole.
        self.same_length = len(self.lower) == len(text)
        starts = []
        pos = 0
        for row in rows:
            starts.append(pos)
            pos += row[3] + 1
        self.starts = starts
        self.size = sys.getsizeof(text) + sys.getsizeof(self.lower)  # (1 to 4 bytes a character)

    def message(self, i: int) -> str:
        start = self.starts[i]
        return self.text[start : start + self.rows[i][3]]


class EntrySearch:
    """Entry search over a catalog's cache, with the session texts it read kept for the next
    keystroke (up to ``text_cache_bytes``). One search at a time per object."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.text_cache_bytes = TEXT_CACHE_BYTES
        self._texts: dict[str, _Texts] = {}
        self._bytes = 0

    def search(
        self,
        query: str | ParsedQuery,
        infos: list[SessionInfo],
        *,
        limit: int | None = None,
        batch: int = BATCH,
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[EntryResults]:
        """The hits of ``query`` in the sessions ``infos`` (a listing: the cache holds their
        texts as listed), best first, as they come: an :class:`EntryResults` after every batch
        of sessions, the last one ``done``. With ``limit``, at most that many hits, and the
        search stops once they are final. Raises :class:`~pitui.store.query.QueryError` for a
        bad ``re:`` pattern (before yielding), :class:`SearchCancelled` when ``cancelled()``."""
        parsed = parse_search_query(query) if isinstance(query, str) else query
        order = sorted(range(len(infos)), key=lambda i: -_bound(infos[i]))
        total = len(infos)
        if parsed.empty or not infos:
            yield EntryResults([], total, total, True)
            return
        candidates = self.catalog.read_cache(lambda conn, db: self._candidates(conn, db, parsed, infos))
        hits: list[tuple[tuple[float, float, int, int], EntryHit]] = []
        needles = _needles(parsed)
        for at in range(0, len(order), batch):
            if cancelled is not None and cancelled():
                raise SearchCancelled
            chunk = [(rank, infos[i]) for rank, i in enumerate(order[at : at + batch], at)]
            wanted = [(rank, info, sid) for rank, info in chunk if (sid := candidates.get(info.path)) is not None]
            if wanted:
                found = self.catalog.read_cache(partial(self._match, wanted=wanted, parsed=parsed, needles=needles))
                hits.extend(found)
                hits.sort(key=lambda pair: pair[0])
                if limit is not None:
                    del hits[limit:]
            searched = min(at + batch, total)
            nxt = _bound(infos[order[searched]]) if searched < total else -math.inf
            final = limit is not None and len(hits) >= limit and -hits[-1][0][1] >= nxt
            if wanted or final or searched == total:
                shown = [hit for _, hit in hits]
                for hit in shown:
                    if not hit.snippet:
                        self._snippet(hit, parsed)
                yield EntryResults(shown, searched, total, final or searched == total, final and searched < total)
            if final:
                return

    # -- one batch (under the catalog's lock) -------------------------------------------------

    def _candidates(
        self, conn: sqlite3.Connection, db: CatalogDB, parsed: ParsedQuery, infos: list[SessionInfo]
    ) -> dict[str, int]:
        """The sessions that can hold a hit (path -> sid): the index rules out those whose text
        lacks a phrase's word or a long enough word; sessions not in the cache have no text."""
        sids = db.sids(conn, [info.path for info in infos])
        chunks = list(phrase_chunks(parsed))
        if parsed.mode == "tokens":
            for token in parsed.tokens:
                low = js_lower(token.value)
                if token.kind == "fuzzy" and len(low) >= 3 and low not in chunks:
                    chunks.append(low)
        if not chunks:
            return sids
        keep = prefilter(conn, chunks, infos, sids, None, lambda info: "")
        return {path: sid for path, sid in sids.items() if path in keep}

    def _match(
        self,
        conn: sqlite3.Connection,
        _db: CatalogDB,
        *,
        wanted: list[tuple[int, SessionInfo, int]],
        parsed: ParsedQuery,
        needles: list[str],
    ) -> list[tuple[tuple[float, float, int, int], EntryHit]]:
        out: list[tuple[tuple[float, float, int, int], EntryHit]] = []
        regex = parsed.regex if parsed.mode == "regex" else None
        for rank, info, sid in wanted:
            texts = self._texts_of(conn, info, sid)
            for i in _possible(texts, needles):
                message = texts.message(i)
                if regex is not None:
                    if regex.search(message) is None:
                        continue
                    score: float = REGEX_SCORE
                else:
                    result = match_fields(SessionFields("", None, "", message), parsed)
                    if not result.matches:
                        continue
                    score = result.score
                offset, eid, assistant, _, ts = texts.rows[i]
                when = ts if isinstance(ts, (int, float)) and not math.isnan(ts) else None
                hit = EntryHit(info, eid, "assistant" if assistant else "user", when, score, offset, message)
                key = (score, -(when if when is not None else -math.inf), rank, -offset)
                out.append((key, hit))
        return out

    def _texts_of(self, conn: sqlite3.Connection, info: SessionInfo, sid: int) -> _Texts:
        key = (info.size, info.mtime_ns)
        kept = self._texts.get(info.path)
        if kept is not None and kept.key == key:
            return kept
        rows, text = stored_text(conn, sid)
        texts = _Texts(key, rows, text)
        if kept is not None:
            del self._texts[info.path]
            self._bytes -= kept.size
        if self._bytes + texts.size <= self.text_cache_bytes:
            self._texts[info.path] = texts
            self._bytes += texts.size
        return texts

    def _snippet(self, hit: EntryHit, parsed: ParsedQuery) -> None:
        message = hit.text
        # (a regex whose match is empty gives none: the message's start is shown)
        spans = match_spans(message, parsed) or [(0, 0)]
        hit.snippet, hit.spans = cut_snippet(message, 0, len(message), spans)
        hit.spans = [span for span in hit.spans if span[0] < span[1]]


def _bound(info: SessionInfo) -> float:
    """No message of the session is newer than this (its ``modified``; unknown: +inf)."""
    m = info.modified
    return math.inf if math.isnan(m) else max(m, 0.0)


def _needles(parsed: ParsedQuery) -> list[str]:
    """Lower-cased texts every matching message holds: each word, each word of each phrase."""
    out: list[str] = []
    if parsed.mode != "tokens":
        return out
    for token in parsed.tokens:
        parts = [js_lower(token.value)] if token.kind == "fuzzy" else normalize_whitespace_lower(token.value).split(" ")
        out.extend(part for part in parts if part and part not in out)
    return out


def _possible(texts: _Texts, needles: list[str]) -> Iterator[int]:
    """The messages that hold every needle (all of them, when there are none), in file order.
    The first needle's places in the lower-cased whole pick the messages; each is then tested."""
    if not texts.rows:
        return
    if not needles:
        yield from range(len(texts.rows))
        return
    low = texts.lower
    if any(needle not in low for needle in needles):
        return
    if not texts.same_length:
        for i in range(len(texts.rows)):
            message = js_lower(texts.message(i))
            if all(needle in message for needle in needles):
                yield i
        return
    first, rest = needles[0], needles[1:]
    starts, rows = texts.starts, texts.rows
    pos = low.find(first)
    while pos >= 0:
        i = bisect_right(starts, pos) - 1
        start = starts[i]
        end = start + rows[i][3]
        if pos + len(first) <= end:
            message = low[start:end]
            if all(needle in message for needle in rest):
                yield i
            pos = low.find(first, end)
        else:
            pos = low.find(first, pos + 1)
