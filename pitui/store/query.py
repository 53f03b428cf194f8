"""pi's ``/resume`` search: query syntax, matching a session, ordering, and where a query matched.

A port of pi 0.73.1's ``session-selector-search.js``, with the same scores (indexes count UTF-16
code units, as JavaScript strings do) so results come out in pi's order; fuzzy scoring is
pi-tui's ``fuzzyMatch`` (:mod:`pitui.store.fuzzy`). One deliberate difference: an invalid
``re:`` pattern raises :class:`QueryError` with the reason, where pi silently shows nothing.

Query syntax (``parse_search_query``):

- ``re:<pattern>``: a case-insensitive regular expression (JavaScript syntax translated to
  Python's by :mod:`pitui.store.jsregex`: ``\\d``, ``\\w``, ``\\s``, ``\\b``, ``.``, ``$`` and
  named groups mean what they mean in JavaScript); the score is the match position × 0.1;
- otherwise whitespace-separated tokens, all of which must match: ``"a phrase"`` matches as a
  substring (case and runs of whitespace ignored), any other token fuzzily (its characters in
  order). Unbalanced quotes make every whitespace-separated word a fuzzy token, quotes included.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pitui.store.fuzzy import collapse_whitespace, fuzzy_lowered, lowered_utf16, normalize_whitespace_lower
from pitui.store.js import JS_WHITESPACE, MISSING, js_string, js_trim, utf16, utf16_index
from pitui.store.jsregex import JS_SPACE_CLASS, translate_js_regex

__all__ = [
    "MatchResult",
    "NameFilter",
    "ParsedQuery",
    "QueryError",
    "SortMode",
    "Token",
    "compile_js_regex",
    "filter_and_sort_sessions",
    "has_session_name",
    "match_session",
    "match_spans",
    "match_text",
    "order_indexes",
    "order_matches",
    "parse_search_query",
    "phrase_chunks",
    "session_search_text",
]

SortMode = Literal["threaded", "recent", "relevance"]
NameFilter = Literal["all", "named"]

_WS_SPLIT = re.compile(f"[{JS_SPACE_CLASS}]+")


class QueryError(ValueError):
    """A query that cannot be run (an empty or invalid ``re:`` pattern)."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: Literal["fuzzy", "phrase"]
    value: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    mode: Literal["tokens", "regex"]
    tokens: tuple[Token, ...] = ()
    regex: re.Pattern[str] | None = None
    pattern: str = ""  # the re: pattern as typed

    @property
    def empty(self) -> bool:
        return self.mode == "tokens" and not self.tokens


@dataclass(frozen=True, slots=True)
class MatchResult:
    matches: bool
    score: float


# --------------------------------------------------------------------------------------------
# Query parsing


def parse_search_query(query: str) -> ParsedQuery:
    """pi's ``parseSearchQuery``. Raises :class:`QueryError` for an empty or invalid regex."""
    trimmed = js_trim(query)
    if not trimmed:
        return ParsedQuery("tokens")
    if trimmed.startswith("re:"):
        pattern = js_trim(trimmed[3:])
        if not pattern:
            raise QueryError("empty regular expression after re:")
        return ParsedQuery("regex", regex=compile_js_regex(pattern), pattern=pattern)

    tokens: list[Token] = []
    buf: list[str] = []
    in_quote = False

    def flush(kind: Literal["fuzzy", "phrase"]) -> None:
        value = js_trim("".join(buf))
        buf.clear()
        if value:
            tokens.append(Token(kind, value))

    for ch in trimmed:
        if ch == '"':
            if in_quote:
                flush("phrase")
                in_quote = False
            else:
                flush("fuzzy")
                in_quote = True
            continue
        if not in_quote and ch in JS_WHITESPACE:
            flush("fuzzy")
            continue
        buf.append(ch)
    if in_quote:
        # Unbalanced quotes: plain whitespace tokens, quotes and all.
        words = [w for w in _WS_SPLIT.split(trimmed) if w]
        return ParsedQuery("tokens", tuple(Token("fuzzy", w) for w in words))
    flush("fuzzy")
    return ParsedQuery("tokens", tuple(tokens))


def compile_js_regex(pattern: str) -> re.Pattern[str]:
    """``new RegExp(pattern, "i")`` as a Python pattern; :class:`QueryError` if invalid."""
    try:
        return re.compile(translate_js_regex(pattern), re.IGNORECASE)
    except re.error as error:
        raise QueryError(f"invalid regular expression: {error.msg}") from None
    except (RecursionError, OverflowError, ValueError) as error:
        raise QueryError(f"invalid regular expression: {error}") from None


# --------------------------------------------------------------------------------------------
# Matching sessions


def session_search_text(session: Any, all_messages_text: str | None = None) -> str:
    """``${id} ${name ?? ""} ${allMessagesText} ${cwd}``: what pi searches in (not the path)."""
    text = all_messages_text if all_messages_text is not None else getattr(session, "all_messages_text", None)
    name = session.name
    return f"{js_string(session.id)} {'' if name is None or name is MISSING else name} {text or ''} {session.cwd}"


def match_text(text: str | None, parsed: ParsedQuery, lowered16: str | None = None) -> MatchResult:
    """pi's ``matchSession`` on a session's search text.

    ``lowered16`` (``lowered_utf16(text)``) may be given instead of or with ``text``: fuzzy and
    phrase tokens only need that form; a regex needs ``text``.
    """
    if parsed.mode == "regex":
        if parsed.regex is None or text is None:
            return MatchResult(False, 0)
        m = parsed.regex.search(text)
        if m is None:
            return MatchResult(False, 0)
        return MatchResult(True, utf16_index(text, m.start()) * 0.1)
    if not parsed.tokens:
        return MatchResult(True, 0)
    if lowered16 is None:
        lowered16 = lowered_utf16(text or "")
    total: float = 0
    normalized: str | None = None
    for token in parsed.tokens:
        if token.kind == "phrase":
            if normalized is None:
                # Code units throughout, so the index is JavaScript's.
                normalized = collapse_whitespace(lowered16)
            phrase = normalize_whitespace_lower(token.value)
            if not phrase:
                continue
            idx = normalized.find(utf16(phrase))
            if idx < 0:
                return MatchResult(False, 0)
            total += idx * 0.1
            continue
        ok, score, _, _ = fuzzy_lowered(token.value, lowered16)
        if not ok:
            return MatchResult(False, 0)
        total += score
    return MatchResult(True, total)


def match_session(session: Any, parsed: ParsedQuery, all_messages_text: str | None = None) -> MatchResult:
    """pi's ``matchSession``."""
    return match_text(session_search_text(session, all_messages_text), parsed)


def has_session_name(session: Any) -> bool:
    """pi's ``hasSessionName``: a name that is not just whitespace."""
    name = session.name
    return isinstance(name, str) and bool(js_trim(name))


def filter_and_sort_sessions(
    sessions: Sequence[Any],
    query: str,
    mode: SortMode = "threaded",
    name_filter: NameFilter = "all",
    text_of: Callable[[Any], str | None] | None = None,
) -> list[Any]:
    """pi's ``filterAndSortSessions``.

    An empty query keeps the input order. ``recent`` filters and keeps the input order;
    ``threaded`` and ``relevance`` sort by score (lower first), ties by ``modified`` newest first.
    ``text_of(session)`` gives a session's ``allMessagesText`` (default: its attribute).
    Raises :class:`QueryError` where pi would show nothing because of a bad regex.
    """
    pool = list(sessions) if name_filter == "all" else [s for s in sessions if has_session_name(s)]
    if not js_trim(query):
        return pool
    parsed = parse_search_query(query)
    scored: list[tuple[Any, float]] = []
    for session in pool:
        text = text_of(session) if text_of is not None else None
        result = match_session(session, parsed, text)
        if result.matches:
            scored.append((session, result.score))
    return order_matches(scored, mode)


def order_matches(scored: Iterable[tuple[Any, float]], mode: SortMode) -> list[Any]:
    """The order pi shows matches in (``scored`` in the listing's order)."""
    items = list(scored)
    order = order_indexes([score for _, score in items], [s for s, _ in items], mode)
    return [items[n][0] for n in order]


def order_indexes(scores: Sequence[float], sessions: Sequence[Any], mode: SortMode) -> list[int]:
    """:func:`order_matches` as indexes into ``scores`` and ``sessions`` (one per match)."""
    order = list(range(len(scores)))
    if mode == "recent":
        return order
    # By score, then newest first, then in the listing's order: two stable sorts on plain
    # numbers (the second key first), which make no key tuple per match.
    newest = [-_modified(s) for s in sessions]
    order.sort(key=newest.__getitem__)
    order.sort(key=scores.__getitem__)
    return order


def _modified(session: Any) -> float:
    m = session.modified
    if isinstance(m, float):
        return float("-inf") if math.isnan(m) else float(m)
    if isinstance(m, int):
        return float(m)
    return float("-inf")


# --------------------------------------------------------------------------------------------
# Where a query matched (for highlighting) and what the index can rule out


def match_spans(text: str, parsed: ParsedQuery) -> list[tuple[int, int]]:
    """``(start, end)`` Python indexes into ``text`` of what each token matched, sorted."""
    spans: list[tuple[int, int]] = []
    if parsed.mode == "regex":
        if parsed.regex is not None and (m := parsed.regex.search(text)) is not None:
            spans.append((m.start(), max(m.end(), m.start())))
        return spans
    for token in parsed.tokens:
        if token.kind == "phrase":
            words = [re.escape(w) for w in _WS_SPLIT.split(js_trim(token.value)) if w]
            if not words:
                continue
            m = re.search(f"[{JS_SPACE_CLASS}]+".join(words), text, re.IGNORECASE)
            if m is not None:
                spans.append((m.start(), m.end()))
            continue
        # A fuzzy token that also occurs as it is, is shown there: the scattered letters a fuzzy
        # match picks first (often inside the id) say little to a reader.
        exact = re.search(re.escape(token.value), text, re.IGNORECASE)
        if exact is not None:
            spans.append((exact.start(), exact.end()))
            continue
        # Else its letters close together (``rate`` in "repeated"), or nothing: letters picked
        # from words far apart ("clea[r] comm[a]nd") are not where it matched for a reader.
        positions = _close_letters(token.value, text)
        if not positions:
            continue
        start = prev = positions[0]
        for p in positions[1:]:
            if p != prev + 1:
                spans.append((start, prev + 1))
                start = p
            prev = p
        spans.append((start, prev + 1))
    spans.sort()
    return spans


FUZZY_GAP = 3  # letters between two of a fuzzy token's, at most, for a snippet to show it there


def _close_letters(token: str, text: str) -> list[int]:
    """Where ``token``'s letters occur in order in ``text`` with at most ``FUZZY_GAP`` others
    between two of them (the first such place), as Python indexes; [] if nowhere."""
    letters = [c for c in token if not c.isspace()]
    if not letters:
        return []
    gap = f"[^\\n]{{0,{FUZZY_GAP}}}?"
    pattern = gap.join(f"({re.escape(c)})" for c in letters)
    found = re.search(pattern, text, re.IGNORECASE)
    return [found.start(n) for n in range(1, len(letters) + 1)] if found else []


def phrase_chunks(parsed: ParsedQuery, min_len: int = 3) -> list[str]:
    """Lower-cased pieces of text every matching session must contain somewhere in one field or
    message (the whitespace-free parts of phrase tokens), for a substring index to rule out
    sessions. Fuzzy tokens and regexes give none: nothing contiguous is implied by them."""
    chunks: list[str] = []
    if parsed.mode != "tokens":
        return chunks
    for token in parsed.tokens:
        if token.kind != "phrase":
            continue
        for piece in normalize_whitespace_lower(token.value).split(" "):
            if len(piece) >= min_len and piece not in chunks:
                chunks.append(piece)
    return chunks
