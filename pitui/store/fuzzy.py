"""Fuzzy matching on lower-cased UTF-16 text: pi-tui 1.6's ``fuzzyMatch`` and ``fuzzyFilter``.

Scores are pi-tui's to the last bit (indexes count UTF-16 code units, as JavaScript strings do),
so results come out in pi's order. ``normalizeWhitespaceLower`` (pi's
``session-selector-search.js``) is here because phrase tokens match on its output.

pi-tui 1.6 (``fuzzy.js``): the greedy alignment (each query character at its first occurrence
after the previous one) is scored, then every contiguous occurrence of the whole query is scored
too and the lowest score kept; a query equal to the text gets 100 off; a query of letters then
digits (or digits then letters) that does not match is tried swapped, for 5 more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from msgspec import Struct

from pitui.store.js import JS_WHITESPACE, js_lower, js_trim, utf16
from pitui.store.jsregex import JS_SPACE_CLASS

__all__ = [
    "BOUNDARY_CHARS",
    "FuzzyResult",
    "collapse_whitespace",
    "fuzzy_filter",
    "fuzzy_lowered",
    "fuzzy_match",
    "lowered_utf16",
    "normalize_whitespace_lower",
]

T = TypeVar("T")

# pi-tui's word boundary class [\s\-_./:]
BOUNDARY_CHARS = frozenset(JS_WHITESPACE + "-_./:")
_WS_RUN = re.compile(f"[{JS_SPACE_CLASS}]+")
_FILTER_SPLIT = re.compile(f"[{JS_SPACE_CLASS}/]+")
_LETTERS_DIGITS = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_LETTERS = re.compile(r"([0-9]+)([a-z]+)")


class FuzzyResult(Struct, frozen=True):
    matches: bool
    score: float


# --------------------------------------------------------------------------------------------
# Whitespace and case, as the matching compares them


def lowered_utf16(text: str) -> str:
    """``text.toLowerCase()`` as UTF-16 code units: what fuzzy and phrase matching compare."""
    return utf16(js_lower(text))


def normalize_whitespace_lower(text: str) -> str:
    """pi's ``normalizeWhitespaceLower``: lower-case, runs of whitespace to one space, trimmed."""
    return collapse_whitespace(js_lower(text))


# Python's str.split() and JavaScript's \s disagree only on these characters.
_SPACE_DIFFERENCES = ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\ufeff", "\u180e")


def collapse_whitespace(text: str) -> str:
    """``text.replace(/\\s+/g, " ").trim()``."""
    if not any(c in text for c in _SPACE_DIFFERENCES):
        return " ".join(text.split())
    return js_trim(_WS_RUN.sub(" ", text))


# --------------------------------------------------------------------------------------------
# pi-tui fuzzyMatch


def _score_positions(tl: str, positions: Sequence[int]) -> float:
    """pi-tui's ``scorePositions``: consecutive runs and word starts lower the score, gaps and
    late positions raise it (the operations in pi's order, for the same floating-point sums)."""
    score: float = 0
    last = -1
    consecutive = 0
    for i in positions:
        if last == i - 1:
            consecutive += 1
            score -= consecutive * 5
        else:
            consecutive = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or tl[i - 1] in BOUNDARY_CHARS:
            score -= 10
        score += i * 0.1
        last = i
    return score


def _match_lowered(q: str, tl: str) -> tuple[bool, float]:
    """pi-tui's ``matchQuery`` on lower-cased UTF-16 strings."""
    if not q:
        return True, 0
    if len(q) > len(tl):
        return False, 0
    positions: list[int] = []
    find = tl.find
    i = -1
    for ch in q:
        i = find(ch, i + 1)
        if i < 0:
            return False, 0
        positions.append(i)
    score = _score_positions(tl, positions)
    n = len(q)
    start = find(q)
    while start != -1:
        score = min(score, _score_positions(tl, range(start, start + n)))
        start = find(q, start + 1)
    if q == tl:
        score -= 100
    return True, score


def _swapped(ql: str) -> str:
    m = _LETTERS_DIGITS.fullmatch(ql)
    if m:
        return m.group(2) + m.group(1)
    m = _DIGITS_LETTERS.fullmatch(ql)
    if m:
        return m.group(2) + m.group(1)
    return ""


def fuzzy_lowered(query: str, text_lower16: str) -> tuple[bool, float]:
    """pi-tui's ``fuzzyMatch`` of ``query`` on a text already lower-cased to UTF-16 units
    (``lowered_utf16``): ``(matches, score)``, lower is better."""
    ql = js_lower(query)
    ok, score = _match_lowered(utf16(ql), text_lower16)
    if ok:
        return ok, score
    swapped = _swapped(ql)
    if not swapped:
        return False, 0
    ok, score = _match_lowered(swapped, text_lower16)
    if not ok:
        return False, 0
    return True, score + 5


def fuzzy_match(query: str, text: str) -> FuzzyResult:
    """pi-tui's ``fuzzyMatch``: lower score is better."""
    ok, score = fuzzy_lowered(query, lowered_utf16(text))
    return FuzzyResult(ok, score)


def fuzzy_filter(items: Sequence[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """pi-tui's ``fuzzyFilter``: tokens split on whitespace and ``/``, all must match; best
    (lowest total) first, ties in the items' order."""
    trimmed = js_trim(query)
    if not trimmed:
        return list(items)
    tokens = [t for t in _FILTER_SPLIT.split(trimmed) if t]
    if not tokens:
        return list(items)
    scored: list[tuple[float, T]] = []
    for item in items:
        text = lowered_utf16(text_of(item))
        total: float = 0
        for token in tokens:
            ok, score = fuzzy_lowered(token, text)
            if not ok:
                break
            total += score
        else:
            scored.append((total, item))
    scored.sort(key=lambda pair: pair[0])
    return [item for _, item in scored]
