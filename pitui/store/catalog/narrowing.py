"""Searching again from an earlier search: a query typed further only narrows.

A session that does not match ``websocket`` cannot match ``websocket r`` under pi 1.6.0's
``matchSession``, so the next keystroke's search only tries the sessions the last one found
(and any session it did not see). That holds only where it is exactly true for pi's rules,
which :func:`refines` decides token by token:

* a fuzzy token is implied by a fuzzy token whose lower-cased text starts with its own: every
  test ``matchFuzzyToken`` makes (a substring of the name, id, messages or cwd; pi-tui's
  ``fuzzyMatch``, whose letters in order include a prefix's, and whose letters-and-digits swap
  of ``ab12`` is ``12ab``, in which both ``ab1`` swapped, ``1ab``, and ``ab`` are found) passes
  for the shorter text when it passes for the longer. Lower-casing is compared, not typing:
  ``ΑΣ`` lower-cases to ``ας`` but ``ΑΣΑ`` to ``ασα`` (JavaScript's final sigma);
* a phrase is implied by a phrase whose collapsed, lower-cased text contains its own (all of
  ``matchPhraseToken``'s tests are substring tests on collapsed text);
* a phrase empty after collapsing is skipped by pi, so it asks nothing;
* nothing else: a regex, a fuzzy token against a phrase (``"flaky`` while the quote is open is
  a fuzzy token with its quote mark; closed, ``"flaky network"`` is a phrase without it).

Whether a session matched is kept with what its answer depends on (its cache row, size, mtime,
id, name and cwd): a session that changed, or that the earlier search did not see, is tried
again. Scores are never reused: every session tried is matched and scored afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import attrgetter, ne, or_
from typing import Any

from pitui.store.catalog.model import SessionInfo
from pitui.store.fuzzy import normalize_whitespace_lower
from pitui.store.js import js_lower
from pitui.store.query import ParsedQuery

__all__ = ["KEPT_SEARCHES", "Narrowing", "Seen", "narrowed", "refines", "session_stamp"]

# Earlier searches kept to start from: typing and deleting a few characters finds one.
KEPT_SEARCHES = 8

# What a session's match depends on besides the query: its cache row, then its size, mtime, id,
# name and cwd (the stamp, which the search's lower-cased fields depend on too).
Stamp = tuple[int, int, Any, str | None, str]
SessionKey = tuple[int | None, Stamp]
session_stamp: Callable[[SessionInfo], Stamp] = attrgetter("size", "mtime_ns", "id", "name", "cwd")
_PATH = attrgetter("path")


def refines(new: ParsedQuery, old: ParsedQuery) -> bool:
    """Whether every session that matches ``new`` also matches ``old`` (pi 1.6.0's rules)."""
    if new.mode != "tokens" or old.mode != "tokens":
        return False
    fuzzy_new = [js_lower(t.value) for t in new.tokens if t.kind == "fuzzy"]
    phrases_new = [normalize_whitespace_lower(t.value) for t in new.tokens if t.kind == "phrase"]
    for token in old.tokens:
        if token.kind == "phrase":
            phrase = normalize_whitespace_lower(token.value)
            if phrase and not any(phrase in other for other in phrases_new):
                return False
        else:
            low = js_lower(token.value)
            if not any(other.startswith(low) for other in fuzzy_new):
                return False
    return True


class Seen:
    """One complete search: the path, sid and stamp of every session it tried or ruled out, in
    the order it was given them, and the paths of those that matched."""

    __slots__ = ("_by_path", "matched", "paths", "sids", "stamps")

    def __init__(self, paths: list[str], sids: list[int | None], stamps: list[Stamp]) -> None:
        self.paths = paths
        self.sids = sids
        self.stamps = stamps
        self.matched: set[str] = set()
        self._by_path: dict[str, SessionKey] | None = None

    def key_of(self, path: str) -> SessionKey | None:
        if self._by_path is None:
            self._by_path = dict(zip(self.paths, zip(self.sids, self.stamps, strict=True), strict=True))
        return self._by_path.get(path)


class Narrowing:
    """The last few complete searches, newest last."""

    def __init__(self) -> None:
        self._kept: list[tuple[ParsedQuery, Seen]] = []

    def clear(self) -> None:
        self._kept.clear()

    def base(self, parsed: ParsedQuery) -> Seen | None:
        """The newest kept search that ``parsed`` refines, or None."""
        for old, seen in reversed(self._kept):
            if refines(parsed, old):
                return seen
        return None

    def keep(self, parsed: ParsedQuery, seen: Seen) -> None:
        """Remember a complete search (a regex is never a base: nothing is kept for it)."""
        if parsed.mode != "tokens" or parsed.empty:
            return
        self._kept = [kept for kept in self._kept if kept[0] != parsed]
        self._kept.append((parsed, seen))
        del self._kept[:-KEPT_SEARCHES]


def narrowed(infos: list[SessionInfo], sids: dict[str, int], base: Seen | None) -> tuple[list[SessionInfo], Seen]:
    """The sessions of ``infos`` that can still match, given ``base``: those it found, and those
    it did not see as they are now (in ``infos``' order); and a :class:`Seen` with the keys of
    every session of ``infos``, for the caller to fill in with its matches."""
    # Every keystroke does this for every listed session: in loops that run in C, making one
    # tuple per session (a keystroke's garbage is collected while the user waits for its rows).
    paths = list(map(_PATH, infos))
    row_sids = list(map(sids.get, paths))
    stamps = list(map(session_stamp, infos))
    seen = Seen(paths, row_sids, stamps)
    if base is None:
        return list(infos), seen
    matched = base.matched
    if paths == base.paths:  # the same sessions as before, in the same order: compare in step
        changed = map(or_, map(ne, row_sids, base.sids), map(ne, stamps, base.stamps))
        again = map(or_, map(matched.__contains__, paths), changed)
        return list(compress(infos, again)), seen
    pool = [
        info
        for info, path, key in zip(infos, paths, zip(row_sids, stamps, strict=True), strict=True)
        if path in matched or base.key_of(path) != key  # found before, or not seen as it is
    ]
    return pool, seen
