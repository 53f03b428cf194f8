"""pi's ``/resume`` search: query syntax, matching a session, ordering, and where a query matched.

A port of pi 1.6.0's ``session-selector-search.js`` (``matchSession``), with the same scores
(indexes count UTF-16 code units, as JavaScript strings do) so results come out in pi's order;
fuzzy scoring is pi-tui's ``fuzzyMatch`` (:mod:`pitui.store.fuzzy`). One deliberate difference:
an invalid ``re:`` pattern raises :class:`QueryError` with the reason, where pi silently shows
nothing.

Query syntax (``parse_search_query``):

- ``re:<pattern>``: a case-insensitive regular expression (JavaScript syntax translated to
  Python's by :mod:`pitui.store.jsregex`: ``\\d``, ``\\w``, ``\\s``, ``\\b``, ``.``, ``$`` and
  named groups mean what they mean in JavaScript);
- otherwise whitespace-separated tokens, all of which must match: ``"a phrase"`` matches as a
  substring (case and runs of whitespace ignored), any other token as a substring or fuzzily
  (its characters in order). Unbalanced quotes make every whitespace-separated word a fuzzy
  token, quotes included.

Matching (``matchSession``): each field is matched on its own, so a token never spans two. A
token scores ``tier * 1_000_000 + s``, a session the sum over its tokens, lower first:

- a fuzzy token in the name: tier 0, ``s`` = its fuzzy score in the name; else in the id, the
  messages (``allMessagesText``) or the cwd: tier 1, 0; else scattered over the name or the cwd:
  tier 2, the better fuzzy score. Messages and ids match only as substrings;
- a phrase: the same, on whitespace-collapsed text, without the scattered fallback;
- a regex: the name, tier 0; else the id, the messages or the cwd, tier 1; no position score.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, Literal

from msgspec import Struct

from pitui.store.fuzzy import collapse_whitespace, fuzzy_lowered, lowered_utf16, normalize_whitespace_lower
from pitui.store.js import JS_WHITESPACE, MISSING, js_lower, js_string, js_trim, utf16
from pitui.store.jsregex import JS_SPACE_CLASS, translate_js_regex

__all__ = [
    "MatchResult",
    "NameFilter",
    "ParsedQuery",
    "QueryError",
    "SessionFields",
    "SortMode",
    "Token",
    "compile_js_regex",
    "filter_and_sort_sessions",
    "has_session_name",
    "match_fields",
    "match_session",
    "match_spans",
    "order_indexes",
    "order_matches",
    "parse_search_query",
    "phrase_chunks",
    "session_fields",
    "session_search_text",
    "token_scorer",
]

SortMode = Literal["threaded", "recent", "relevance"]
NameFilter = Literal["all", "named"]

_WS_SPLIT = re.compile(f"[{JS_SPACE_CLASS}]+")


class QueryError(ValueError):
    """A query that cannot be run (an empty or invalid ``re:`` pattern)."""


class Token(Struct, frozen=True):
    kind: Literal["fuzzy", "phrase"]
    value: str


class ParsedQuery(Struct, frozen=True):
    mode: Literal["tokens", "regex"]
    tokens: tuple[Token, ...] = ()
    regex: re.Pattern[str] | None = None
    pattern: str = ""  # the re: pattern as typed

    @property
    def empty(self) -> bool:
        return self.mode == "tokens" and not self.tokens


class MatchResult(Struct, frozen=True):
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
# Matching sessions (pi 1.6.0 ``matchSession``: each field on its own, in tiers)

TIER_NAME = 0  # the token's text is in the session name
TIER_TEXT = 1  # ... in the id, the messages or the cwd
TIER_FUZZY = 2  # its characters are scattered over the name or the cwd
TIER_WEIGHT = 1_000_000


class SessionFields:
    """A session's fields as pi's ``matchSession`` compares them, lower-cased once (pi keeps
    the lower-cased message text per session too): ``name16`` and ``cwd16`` as UTF-16 units for
    fuzzy scores, ``messages`` (``allMessagesText.toLowerCase()``) for substring tests only.
    The whitespace-collapsed forms phrase tokens need are made on first use.

    The messages are held as UTF-8 (lone surrogates as their three bytes): a Python string takes
    four bytes a character once one character of it is beyond U+FFFF (an emoji), and a session's
    text nearly always has one; its UTF-8 takes about one. A substring test on the bytes gives
    what it gives on the text, as UTF-8 never matches inside a character."""

    __slots__ = ("_messages_norm", "_name_norm", "cwd", "cwd16", "id", "id_lower", "messages", "name", "name16")

    def __init__(self, id_text: str, name: str | None, cwd: str, messages_text: str) -> None:
        self.id = id_text
        self.name = name or ""
        self.cwd = cwd
        self.id_lower = js_lower(id_text)
        self.name16 = lowered_utf16(self.name)
        self.cwd16 = lowered_utf16(cwd)
        self.messages = _utf8(js_lower(messages_text))
        self._name_norm: str | None = None
        self._messages_norm: bytes | None = None

    @property
    def size(self) -> int:
        """Bytes its texts take (for a cache's allowance): a string of n characters takes n, 2n
        or 4n bytes by its widest character, so one emoji in a session makes its text four
        times bigger than its count of characters."""
        return sum(map(sys.getsizeof, (self.messages, self._messages_norm or b"", self.name16, self.cwd16)))

    def name_norm(self) -> str:
        if self._name_norm is None:
            self._name_norm = collapse_whitespace(self.name16)
        return self._name_norm

    def messages_norm(self) -> bytes:
        if self._messages_norm is None:
            self._messages_norm = _utf8(collapse_whitespace(self.messages.decode("utf-8", "surrogatepass")))
        return self._messages_norm


def _utf8(text: str) -> bytes:
    """Text as :class:`SessionFields` holds the messages (and a needle looked for in them)."""
    return text.encode("utf-8", "surrogatepass")


def session_fields(session: Any, all_messages_text: str | None = None) -> SessionFields:
    """:class:`SessionFields` of a listed session (``all_messages_text`` default: its attribute)."""
    text = all_messages_text if all_messages_text is not None else getattr(session, "all_messages_text", None)
    name = session.name
    return SessionFields(js_string(session.id), None if name is MISSING else name, session.cwd, text or "")


def _fuzzy_token(value: str) -> Callable[[SessionFields], float | None]:
    """pi's ``matchFuzzyToken`` for the token ``value`` (as typed), as a function of a
    session's fields: a literal hit in the name (tier 0), else in the id, messages or cwd (tier
    1), else the best scattered match over name and cwd (tier 2). The token is lower-cased here
    once, in each form the fields hold: ``js_lower`` (the id), UTF-16 units (name and cwd),
    UTF-8 (the messages)."""
    plain = js_lower(value)
    low = utf16(plain)
    plain8 = _utf8(plain)

    def fuzzy_score(f: SessionFields) -> float | None:
        if low in f.name16:
            return TIER_NAME * TIER_WEIGHT + fuzzy_lowered(low, f.name16)[1]
        if plain in f.id_lower or plain8 in f.messages or low in f.cwd16:
            return TIER_TEXT * TIER_WEIGHT
        best: float | None = None
        for field in (f.name16, f.cwd16):
            ok, score = fuzzy_lowered(value, field)
            if ok and (best is None or score < best):
                best = score
        return None if best is None else TIER_FUZZY * TIER_WEIGHT + best

    return fuzzy_score


def _phrase_token(phrase: str) -> Callable[[SessionFields], float | None]:
    """pi's ``matchPhraseToken`` for ``phrase`` (already whitespace-collapsed and lower-cased),
    as a function of a session's fields."""
    low = utf16(phrase)
    phrase8 = _utf8(phrase)

    def phrase_score(f: SessionFields) -> float | None:
        if low in f.name_norm():
            return TIER_NAME * TIER_WEIGHT + fuzzy_lowered(low, f.name_norm())[1]
        if phrase in f.id_lower or phrase8 in f.messages_norm() or low in collapse_whitespace(f.cwd16):
            return TIER_TEXT * TIER_WEIGHT
        return None

    return phrase_score


def _regex(f: SessionFields, regex: re.Pattern[str], messages_text: str) -> float | None:
    """pi's ``matchRegex``: the name (tier 0), else the id, the raw messages or the cwd."""
    if f.name and regex.search(f.name):
        return TIER_NAME * TIER_WEIGHT
    if regex.search(f.id) or regex.search(messages_text) or regex.search(f.cwd):
        return TIER_TEXT * TIER_WEIGHT
    return None


_NO_MATCH = MatchResult(False, 0)


@lru_cache(maxsize=64)
def token_scorer(parsed: ParsedQuery) -> Callable[[SessionFields], float | None]:
    """pi 1.6.0's ``matchSession`` for a query of tokens, as a function of a session's fields:
    its score, or None when it does not match. The tokens are lower-cased once here, not once
    per session (a keystroke scores thousands)."""
    steps: list[Callable[[SessionFields], float | None]] = []
    for token in parsed.tokens:
        if token.kind == "phrase":
            phrase = normalize_whitespace_lower(token.value)
            if phrase:  # pi skips a phrase of whitespace only
                steps.append(_phrase_token(phrase))
        else:
            steps.append(_fuzzy_token(token.value))
    if len(steps) == 1:
        return steps[0]  # (most queries, and every keystroke of the first word)

    def score_of(f: SessionFields) -> float | None:
        total: float = 0
        for step in steps:
            score = step(f)
            if score is None:
                return None
            total += score
        return total

    return score_of


def match_fields(f: SessionFields, parsed: ParsedQuery, messages_text: str | None = None) -> MatchResult:
    """pi 1.6.0's ``matchSession`` on a session's fields. A regex needs ``messages_text``
    (``allMessagesText`` as it is: pi tests the pattern on it, not on the lower-cased form)."""
    if parsed.mode == "regex":
        if parsed.regex is None:
            return _NO_MATCH
        score = _regex(f, parsed.regex, messages_text or "")
    else:
        score = token_scorer(parsed)(f)
    return _NO_MATCH if score is None else MatchResult(True, score)


def match_session(session: Any, parsed: ParsedQuery, all_messages_text: str | None = None) -> MatchResult:
    """pi's ``matchSession``."""
    text = all_messages_text if all_messages_text is not None else getattr(session, "all_messages_text", None)
    return match_fields(session_fields(session, text), parsed, text or "")


def session_search_text(session: Any, all_messages_text: str | None = None) -> str:
    """``${id} ${name ?? ""} ${allMessagesText} ${cwd}``: the fields one space apart, which
    snippets look for a match in (pi 0.73.1 searched this text as one; 1.6.0 matches each field
    on its own)."""
    text = all_messages_text if all_messages_text is not None else getattr(session, "all_messages_text", None)
    name = session.name
    return f"{js_string(session.id)} {'' if name is None or name is MISSING else name} {text or ''} {session.cwd}"


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
    times = [s.modified for s in sessions]
    if set(map(type, times)) <= _FLOAT:  # (listed sessions: NaN only out of Date's range)
        newest = [_INFINITY if m != m else -m for m in times]
    else:
        newest = [-_modified(s) for s in sessions]
    order.sort(key=newest.__getitem__)
    order.sort(key=scores.__getitem__)
    return order


_FLOAT = frozenset({float})
_INFINITY = float("inf")


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
