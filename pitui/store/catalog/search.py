"""Searching the catalog: pi's ``/resume`` matching over cached session texts, kept fast for
every keystroke by what :class:`CatalogSearch` remembers between searches.

It keeps two things: the lower-cased fields of each session (made ahead of the first search, up
to a budget of characters), and the search texts of the last sessions given a snippet.
"""

from __future__ import annotations

import re
import sqlite3
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from itertools import compress, repeat
from operator import attrgetter, is_not
from typing import Any

from pitui.store.catalog.db import stored_text, texts
from pitui.store.catalog.index import prefilter, session_head
from pitui.store.catalog.model import SearchCancelled, SearchHit, Segment, SessionInfo
from pitui.store.catalog.narrowing import Narrowing, Stamp, narrowed, session_stamp
from pitui.store.js import js_lower
from pitui.store.query import (
    ParsedQuery,
    SessionFields,
    Token,
    match_fields,
    match_spans,
    phrase_chunks,
    token_scorer,
)

__all__ = [
    "SNIPPET_BEFORE",
    "SNIPPET_SOURCES",
    "SNIPPET_WIDTH",
    "TEXT_CACHE_BYTES",
    "WARM_UP_BATCH",
    "CatalogSearch",
    "cut_snippet",
]

# Bytes of lower-cased search text kept in memory, in all (held as UTF-8: the 2,000 sessions of
# the benchmark, 452 MB of files, take about 28 MB, the 10,000, 1.4 GB, about 84 MB); the
# sessions beyond it are read from the cache at each search.
TEXT_CACHE_BYTES = 160 << 20
# Sessions whose lower-cased texts prepare_search makes at a time: a search that comes meanwhile
# waits for one batch at most.
WARM_UP_BATCH = 32
# Ask ``cancelled()`` once every 32 sessions for a regex (slow on each text) and every 128 for
# tokens (fast, scored a batch at a time): often enough to stop soon, rarely enough to cost nothing.
REGEX_CANCEL_MASK = 31
TOKEN_BATCH = 128
# The full-text index is asked only when more sessions than this are left to try (after an earlier
# search narrowed them): fewer are matched sooner than the index answers.
PREFILTER_ABOVE = 256
# Sessions whose search text and segments are kept for snippets: more than the hits on a screen,
# since the next keystroke's snippets are mostly of the same sessions.
SNIPPET_SOURCES = 64
# A snippet starts this many characters before the first match and is this long (or as long as
# the match), cut to the message (or field) it is in.
SNIPPET_BEFORE = 30
SNIPPET_WIDTH = 120

_PATH = attrgetter("path")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class CatalogSearch:
    """Matching and snippets for :class:`~pitui.store.catalog.catalog.Catalog`, with what they
    remember between searches. Every method takes the catalog's open connection, under its lock."""

    def __init__(self) -> None:
        self.text_cache_bytes = TEXT_CACHE_BYTES
        # sid -> ((size, mtime_ns, id, name, cwd), lower-cased fields, characters counted)
        self._fields_cache: dict[int, tuple[Stamp, SessionFields, int]] = {}
        self._cache_bytes = 0
        self._snippet_sources: OrderedDict[int, tuple[Any, _SnippetSource]] = OrderedDict()
        # Per listed session (by identity; the object and its id, name and cwd kept to check
        # it): its lower-cased head (id, name, cwd) and id, which every keystroke looks in.
        self._heads: dict[int, tuple[SessionInfo, str, str, Any, str | None, str]] = {}
        # The last complete searches, which a query typed further starts from.
        self._narrowing = Narrowing()

    def clear(self) -> None:
        """Forget everything (the cache was thrown away)."""
        self._narrowing.clear()
        self._heads.clear()
        self._fields_cache.clear()
        self._cache_bytes = 0
        self._snippet_sources.clear()

    def forget(self, sid: int) -> None:
        """Forget a session that left the cache."""
        self._narrowing.clear()
        kept = self._fields_cache.pop(sid, None)
        if kept is not None:
            self._cache_bytes -= kept[2]

    @property
    def full(self) -> bool:
        """Whether the lower-cased texts kept use up their allowance."""
        return self._cache_bytes >= self.text_cache_bytes

    def match(
        self,
        conn: sqlite3.Connection,
        infos: list[SessionInfo],
        sids: dict[str, int],
        parsed: ParsedQuery,
        cancelled: Callable[[], bool] | None = None,
    ) -> tuple[list[SessionInfo], list[float], list[int | None]]:
        """The sessions of ``infos`` that match, in their order, with their scores and sids.

        The full-text index only rules sessions out (those that cannot hold a phrase), and so
        does an earlier search that this query refines (:mod:`.narrowing`); whether a session
        matches, and its score, are pi's ``matchSession`` on its fields."""
        regex = parsed.mode == "regex"
        seen = None
        pool = infos
        if not regex:
            pool, seen = narrowed(infos, sids, self._narrowing.base(parsed))
        candidates: set[str] | None = None
        chunks = phrase_chunks(parsed)
        elsewhere = _fuzzy_chunks(parsed, self._id_lower)
        chunks += [chunk for chunk in elsewhere if chunk not in chunks]
        if chunks and len(pool) > PREFILTER_ABOVE:
            if len(self._heads) > 4 * len(infos) + 1024:  # rows of listings long gone
                self._heads.clear()
            candidates = prefilter(conn, chunks, pool, sids, elsewhere, self._head)
            pool = [info for info in pool if info.path in candidates]
        found: list[SessionInfo] = []
        scores: list[float] = []
        found_sids: list[int | None] = []
        if regex:
            wanted = {sids[info.path]: info for info in pool if info.path in sids}
            by_sid = texts(conn, set(wanted))
            for n, info in enumerate(pool):
                if cancelled is not None and not n & REGEX_CANCEL_MASK and cancelled():
                    raise SearchCancelled
                sid = sids.get(info.path)
                body = by_sid.get(sid, "") if sid is not None else ""
                result = match_fields(SessionFields(info.id_text, info.name, info.cwd, ""), parsed, body)
                if result.matches:
                    found.append(info)
                    scores.append(result.score)
                    found_sids.append(sid)
            return found, scores, found_sids
        # Every keystroke scores every session left: in batches mapped in C, not a loop here.
        pool_sids = list(map(sids.get, map(_PATH, pool)))
        fields = self._fields_of(conn, pool, pool_sids)
        score_of = token_scorer(parsed)
        every: list[float | None] = []
        for start in range(0, len(pool), TOKEN_BATCH):
            if cancelled is not None and cancelled():
                raise SearchCancelled
            every += map(score_of, fields[start : start + TOKEN_BATCH])
        hit = list(compress(range(len(pool)), map(is_not, every, repeat(None))))
        found = list(map(pool.__getitem__, hit))
        scores = list(map(every.__getitem__, hit))  # type: ignore[arg-type]
        found_sids = list(map(pool_sids.__getitem__, hit))
        if seen is not None:
            seen.matched.update(map(_PATH, found))
            self._narrowing.keep(parsed, seen)
        return found, scores, found_sids

    def _kept_head(self, info: SessionInfo) -> tuple[SessionInfo, str, str, Any, str | None, str]:
        kept = self._heads.get(id(info))
        if kept is None or kept[0] is not info or kept[3] is not info.id or kept[4] != info.name or kept[5] != info.cwd:
            head = (info, session_head(info), js_lower(info.id_text), info.id, info.name, info.cwd)
            kept = self._heads[id(info)] = head
        return kept

    def _head(self, info: SessionInfo) -> str:
        return self._kept_head(info)[1]

    def _id_lower(self, info: SessionInfo) -> str:
        return self._kept_head(info)[2]

    def prepare(self, conn: sqlite3.Connection, wanted: dict[int, SessionInfo]) -> None:
        """Make the lower-cased texts of ``wanted`` (sid -> row) ahead of a search."""
        infos = list(wanted.values())
        self._fields_of(conn, infos, list(wanted))

    def _fields_of(
        self, conn: sqlite3.Connection, infos: list[SessionInfo], sids: list[int | None]
    ) -> list[SessionFields]:
        """Each session's fields as pi's matching compares them (lower-cased), in the order of
        ``infos`` (``sids``: their sids, None for a session not in the cache, which then has no
        messages). Kept in memory after the first search (up to ``text_cache_bytes`` in all)."""
        cache = self._fields_cache
        kept = list(map(cache.get, sids))  # type: ignore[arg-type]  # (None: no such sid)
        out: list[SessionFields | None] = [
            entry[1] if entry is not None and entry[0] == stamp else None
            for entry, stamp in zip(kept, map(session_stamp, infos), strict=True)
        ]
        if None not in out:
            return out  # type: ignore[return-value]
        need = {sid: info for sid, info, f in zip(sids, infos, out, strict=True) if f is None and sid is not None}
        made: dict[int, SessionFields] = {}
        if need:
            for sid, text in texts(conn, set(need)).items():
                info = need[sid]
                fields = made[sid] = SessionFields(info.id_text, info.name, info.cwd, text)
                old = cache.pop(sid, None)
                if old is not None:
                    self._cache_bytes -= old[2]
                size = fields.size
                if self._cache_bytes + size <= self.text_cache_bytes:
                    cache[sid] = (session_stamp(info), fields, size)
                    self._cache_bytes += size
        for n, f in enumerate(out):
            if f is None:
                row, info = sids[n], infos[n]
                got = made.get(row) if row is not None else None
                out[n] = got if got is not None else SessionFields(info.id_text, info.name, info.cwd, "")
        return out  # type: ignore[return-value]

    # -- snippets ---------------------------------------------------------------------------

    def snippet(self, conn: sqlite3.Connection, hit: SearchHit, sid: int, parsed: ParsedQuery) -> None:
        """Fill in ``hit``'s snippet, spans and where it matched."""
        info = hit.info
        source = self._snippet_source(conn, sid, info)
        search_text = source.text
        spans = match_spans(search_text, parsed)
        if not spans:
            return
        seg = source.segment_at(spans[0][0])
        hit.snippet, hit.spans = cut_snippet(search_text, seg.start, seg.end, spans)
        hit.field = seg.field
        hit.entry_id = seg.entry_id
        hit.role = seg.role

    def _snippet_source(self, conn: sqlite3.Connection, sid: int, info: SessionInfo) -> _SnippetSource:
        """A session's search text and where each part of it is. The last few are kept: the
        next keystroke's snippets are mostly of the same sessions."""
        key = (info.size, info.mtime_ns, info.id, info.name, info.cwd)
        kept = self._snippet_sources.get(sid)
        if kept is not None and kept[0] == key:
            self._snippet_sources.move_to_end(sid)
            return kept[1]
        source = _SnippetSource(info, *stored_text(conn, sid))
        self._snippet_sources[sid] = (key, source)
        while len(self._snippet_sources) > SNIPPET_SOURCES:
            self._snippet_sources.popitem(last=False)
        return source


class _SnippetSource:
    """pi's search text of a session (``id name allMessagesText cwd``) and where each of its
    parts starts and ends: the id, the name, each message, the cwd, one space apart.

    The parts are kept as two lists of offsets, and a :class:`Segment` is made only for the one
    a snippet is in: a session has as many parts as messages, and making a record for each made
    the first keystroke's snippets cost twice as much.
    """

    __slots__ = ("cwd", "ends", "id_text", "meta", "name", "starts", "text")

    def __init__(self, info: SessionInfo, meta: list[Any], messages_text: str) -> None:
        self.id_text = id_text = info.id_text
        self.name = name = info.name or ""
        self.cwd = info.cwd
        self.meta = meta  # per message: (offset, entry id, assistant, length, time), as pack_rows stores it
        starts = [0, len(id_text) + 1]
        ends = [len(id_text), len(id_text) + 1 + len(name)]
        pos = ends[1] + 1
        for i, row in enumerate(meta):
            if i:
                pos += 1
            starts.append(pos)
            pos += row[3]
            ends.append(pos)
        pos += 1
        starts.append(pos)
        ends.append(pos + len(info.cwd))
        self.starts = starts
        self.ends = ends
        self.text = f"{id_text} {name} {messages_text} {info.cwd}"

    def segment_at(self, anchor: int) -> Segment:
        """The part that holds ``anchor`` (or ends at it), else the id. (The parts are in order
        and do not overlap: only the last one starting at or before ``anchor`` can hold it.)"""
        k = bisect_right(self.starts, anchor) - 1
        if k < 0 or anchor > self.ends[k]:
            k = 0
        start, end = self.starts[k], self.ends[k]
        if k == 0:
            return Segment(start, end, "id", None, None)
        if k == 1:
            return Segment(start, end, "name", None, None)
        if k == len(self.starts) - 1:
            return Segment(start, end, "cwd", None, None)
        row = self.meta[k - 2]
        eid, assistant = row[1], row[2]
        return Segment(start, end, "message", eid, "assistant" if assistant else "user")


def cut_snippet(
    text: str, seg_start: int, seg_end: int, spans: list[tuple[int, int]]
) -> tuple[str, list[tuple[int, int]]]:
    """One line around the first of ``spans`` (sorted, not empty), within ``text[seg_start:
    seg_end]`` (the message or field it is in): ``SNIPPET_BEFORE`` characters before it, about
    ``SNIPPET_WIDTH`` long, ``…`` where it was cut; and the spans moved into it."""
    anchor = spans[0][0]
    start = max(seg_start, anchor - SNIPPET_BEFORE)
    end = min(seg_end, max(start + SNIPPET_WIDTH, spans[0][1]))
    snippet = _clean(text[start:end])
    shift = 0
    if start > seg_start:
        snippet = "…" + snippet
        shift = 1
    if end < seg_end:
        snippet += "…"
    moved = [(max(a, start) - start + shift, min(b, end) - start + shift) for a, b in spans if a < end and b > start]
    return snippet, moved


def _clean(text: str) -> str:
    """One line of plain text: line breaks, tabs and control characters become spaces."""
    return _CONTROL.sub(" ", text)


def _fuzzy_chunks(
    parsed: ParsedQuery, id_lower: Callable[[SessionInfo], str] | None = None
) -> dict[str, Callable[[SessionInfo], bool]]:
    """The fuzzy tokens a substring index can rule sessions out by (three characters or more):
    pi 1.6.0 matches a fuzzy token in the messages only as a substring (``matchFuzzyToken``), so
    a session whose messages lack it matches only through its id, name or cwd, which the
    returned test of each tries (the token alone, on the session without its messages)."""
    out: dict[str, Callable[[SessionInfo], bool]] = {}
    if parsed.mode != "tokens":
        return out
    for token in parsed.tokens:
        chunk = js_lower(token.value)
        if token.kind == "fuzzy" and len(chunk) >= 3 and chunk not in out:
            out[chunk] = _outside_messages(chunk, ParsedQuery("tokens", (Token("fuzzy", token.value),)), id_lower)
    return out


def _outside_messages(
    chunk: str, alone: ParsedQuery, id_lower: Callable[[SessionInfo], str] | None = None
) -> Callable[[SessionInfo], bool]:
    """Whether a session matches the one fuzzy token ``alone`` with no messages: in its id, or
    in its name and cwd, whose answer is remembered (many sessions share a cwd and no name).
    ``id_lower(info)``: the id lower-cased (``js_lower``), from a cache."""
    known: dict[tuple[str | None, str], bool] = {}

    def matches(info: SessionInfo) -> bool:
        if chunk in (id_lower(info) if id_lower is not None else js_lower(info.id_text)):
            return True
        key = (info.name, info.cwd)
        found = known.get(key)
        if found is None:
            found = known[key] = match_fields(SessionFields("", info.name, info.cwd, ""), alone).matches
        return found

    return matches
