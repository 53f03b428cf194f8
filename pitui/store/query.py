"""pi's ``/resume`` search: query syntax, fuzzy scoring, matching and ordering.

A port of pi 0.73.1's ``session-selector-search.js`` and pi-tui's ``fuzzyMatch``, with the same
scores (indexes count UTF-16 code units, as JavaScript strings do) so results come out in pi's
order. One deliberate difference: an invalid ``re:`` pattern raises :class:`QueryError` with
the reason, where pi silently shows nothing.

Query syntax (``parse_search_query``):

- ``re:<pattern>``: a case-insensitive regular expression (JavaScript syntax translated to
  Python's: ``\\d``, ``\\w``, ``\\s``, ``\\b``, ``.``, ``$`` and named groups mean what they mean
  in JavaScript); the score is the match position × 0.1;
- otherwise whitespace-separated tokens, all of which must match: ``"a phrase"`` matches as a
  substring (case and runs of whitespace ignored), any other token fuzzily (its characters in
  order). Unbalanced quotes make every whitespace-separated word a fuzzy token, quotes included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pitui.store.js import JS_WHITESPACE, MISSING, js_trim

__all__ = [
    "BOUNDARY_CHARS",
    "FuzzyResult",
    "MatchResult",
    "ParsedQuery",
    "QueryError",
    "Token",
    "TokenMatcher",
    "filter_and_sort_sessions",
    "fuzzy_match",
    "has_session_name",
    "lowered_utf16",
    "match_session",
    "match_spans",
    "match_text",
    "normalize_whitespace_lower",
    "parse_search_query",
    "phrase_chunks",
    "session_search_text",
    "translate_js_regex",
]

SortMode = Literal["threaded", "recent", "relevance"]
NameFilter = Literal["all", "named"]

# JavaScript's \s, and pi-tui's word boundary class [\s\-_./:]
_WS_CLASS = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
_WS_RUN = re.compile(f"[{_WS_CLASS}]+")
_WS_SPLIT = _WS_RUN
BOUNDARY_CHARS = frozenset(JS_WHITESPACE + "-_./:")
_LETTERS_DIGITS = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_LETTERS = re.compile(r"([0-9]+)([a-z]+)")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


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
class FuzzyResult:
    matches: bool
    score: float


@dataclass(frozen=True, slots=True)
class MatchResult:
    matches: bool
    score: float


class SessionLike(Protocol):
    id: Any
    name: str | None
    cwd: str
    modified: float


# --------------------------------------------------------------------------------------------
# JavaScript string helpers


def js_lower(text: str) -> str:
    """``toLowerCase`` (Python's lower uses the same Unicode full mappings)."""
    return text.lower()


def utf16(text: str) -> str:
    """``text`` with every character outside the BMP split into its two surrogates, so that
    indexes and single-character comparisons work on UTF-16 code units as in JavaScript."""
    if text.isascii() or not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_surrogates, text)


def _surrogates(m: re.Match[str]) -> str:
    c = ord(m.group()) - 0x10000
    return chr(0xD800 + (c >> 10)) + chr(0xDC00 + (c & 0x3FF))


def utf16_index(text: str, index: int) -> int:
    """The UTF-16 index of the character at Python index ``index``."""
    if text.isascii():
        return index
    return index + len(_ASTRAL.findall(text, 0, index))


def normalize_whitespace_lower(text: str) -> str:
    """pi's ``normalizeWhitespaceLower``: lower-case, runs of whitespace to one space, trimmed."""
    return _collapse(js_lower(text))


# Python's str.split() and JavaScript's \s disagree only on these characters.
_SPACE_DIFFERENCES = ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\ufeff", "\u180e")


def _collapse(text: str) -> str:
    """``text.replace(/\\s+/g, " ").trim()``."""
    if not any(c in text for c in _SPACE_DIFFERENCES):
        return " ".join(text.split())
    return js_trim(_WS_RUN.sub(" ", text))


def _js_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    from pitui.store.js import js_string

    return js_string(value)


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


_WORD = "A-Za-z0-9_"
_JS_ESCAPES_OUTSIDE = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_WS_CLASS}]",
    "S": f"[^{_WS_CLASS}]",
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
    "/": "/",
}
_JS_ESCAPES_INSIDE = {"d": "0-9", "w": _WORD, "s": _WS_CLASS, "b": "\\x08", "/": "/"}


def translate_js_regex(pattern: str) -> str:
    """A JavaScript (non-unicode mode) pattern rewritten so Python's ``re`` reads it the same way
    for the common constructs: ASCII ``\\d \\w \\b``, JavaScript's ``\\s``, ``.`` not matching
    line terminators, ``$`` only at the very end, ``(?<name>…)`` and ``\\k<name>``."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            table = _JS_ESCAPES_INSIDE if in_class else _JS_ESCAPES_OUTSIDE
            if nxt in table:
                out.append(table[nxt])
                i += 2
                continue
            if nxt == "k" and not in_class and i + 2 < n and pattern[i + 2] == "<":
                end = pattern.find(">", i + 3)
                if end > 0:
                    out.append(f"(?P={pattern[i + 3 : end]})")
                    i = end + 1
                    continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[":
                out.append("\\[")
                i += 1
                continue
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                in_class = False
                continue
            if pattern.startswith("[]", i):
                out.append("(?!)")
                i += 2
                in_class = False
                continue
            out.append(c)
            if i + 1 < n and pattern[i + 1] == "^":
                out.append("^")
                i += 1
            i += 1
            continue
        if c == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif c == "$":
            out.append("(?!(?s:.))")
        elif c == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def compile_js_regex(pattern: str) -> re.Pattern[str]:
    """``new RegExp(pattern, "i")`` as a Python pattern; :class:`QueryError` if invalid."""
    try:
        return re.compile(translate_js_regex(pattern), re.IGNORECASE)
    except re.error as error:
        raise QueryError(f"invalid regular expression: {error.msg}") from None
    except (RecursionError, OverflowError, ValueError) as error:
        raise QueryError(f"invalid regular expression: {error}") from None


# --------------------------------------------------------------------------------------------
# Fuzzy matching (pi-tui fuzzyMatch)


def _match_lowered(q: str, tl: str) -> tuple[bool, float, list[int] | None]:
    """pi-tui's ``matchQuery`` on lower-cased UTF-16 strings; positions of the matched units."""
    if not q:
        return True, 0, []
    if len(q) > len(tl):
        return False, 0, None
    positions: list[int] = []
    state = _advance(q, tl, 0, -1, 0, positions)
    if state is None:
        return False, 0, None
    score = state[0]
    if q == tl:
        score -= 100
    return True, score, positions


def _swapped(ql: str) -> str:
    m = _LETTERS_DIGITS.fullmatch(ql)
    if m:
        return m.group(2) + m.group(1)
    m = _DIGITS_LETTERS.fullmatch(ql)
    if m:
        return m.group(2) + m.group(1)
    return ""


def _fuzzy(query: str, text_lower16: str) -> tuple[bool, float, list[int] | None, str]:
    ql = js_lower(query)
    q16 = utf16(ql)
    ok, score, pos = _match_lowered(q16, text_lower16)
    if ok:
        return ok, score, pos, q16
    swapped = _swapped(ql)
    if not swapped:
        return False, 0, None, q16
    ok, score, pos = _match_lowered(swapped, text_lower16)
    if not ok:
        return False, 0, None, q16
    return True, score + 5, pos, swapped


def fuzzy_match(query: str, text: str) -> FuzzyResult:
    """pi-tui's ``fuzzyMatch``: lower score is better."""
    ok, score, _, _ = _fuzzy(query, utf16(js_lower(text)))
    return FuzzyResult(ok, score)


# --------------------------------------------------------------------------------------------
# Matching sessions


def session_search_text(session: Any, all_messages_text: str | None = None) -> str:
    """``${id} ${name ?? ""} ${allMessagesText} ${cwd}``: what pi searches in (not the path)."""
    text = all_messages_text if all_messages_text is not None else getattr(session, "all_messages_text", None)
    name = session.name
    return f"{_js_string(session.id)} {'' if name is None or name is MISSING else name} {text or ''} {session.cwd}"


def lowered_utf16(text: str) -> str:
    """``text.toLowerCase()`` as UTF-16 code units: what fuzzy and phrase matching compare."""
    return utf16(js_lower(text))


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
                normalized = _collapse(lowered16)
            phrase = normalize_whitespace_lower(token.value)
            if not phrase:
                continue
            idx = normalized.find(utf16(phrase))
            if idx < 0:
                return MatchResult(False, 0)
            total += idx * 0.1
            continue
        ok, score, _, _ = _fuzzy(token.value, lowered16)
        if not ok:
            return MatchResult(False, 0)
        total += score
    return MatchResult(True, total)


# A text's outcome, kept so that the next keystroke can start from it: one flat tuple (a search
# makes one per session and keystroke: nested ones would be garbage for the collector to
# chase), ``(total score, sum of the scores of all tokens but the last, *token fields)``, six
# fields a token: fuzzy ``(True, score, matched as typed, score before the whole-text bonus,
# last index, consecutive run)``; phrase ``(True, score, False, 0, -1, 0)``; an empty phrase
# ``(None, 0, False, 0, -1, 0)``.
Outcome = tuple[Any, ...]
_FIELDS = 6


def _advance(q: str, tl: str, score: float, last: int, consecutive: int,
             positions: list[int] | None = None) -> tuple[float, int, int] | None:
    """pi-tui's ``matchQuery`` loop over ``q``, from the state it had after the characters before
    ``q`` (``(0, -1, 0)`` at the start): the new state, or None when a character is missing.
    ``positions``, if given, gets the index of each matched unit."""
    find = tl.find
    i = last
    for ch in q:
        i = find(ch, i + 1)
        if i < 0:
            return None
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
        if positions is not None:
            positions.append(i)
    return score, last, consecutive


class TokenMatcher:
    """:func:`match_text` for one token query, on lower-cased search texts
    (``lowered_utf16``), that can start from what a query it extends found on the same text.

    A query extends another when it has the same tokens with the last one typed further (a fuzzy
    token, compared lower-cased) and maybe more tokens after them. Then every text the new query
    matches, the old one matched too (fuzzy matching is greedy: a longer token matches where its
    beginning did, from the same positions on), so the old outcome tells which texts to skip,
    and where each token's matching stopped, from where the new characters are matched. Results
    are :func:`match_text`'s, to the last bit of every score.
    """

    __slots__ = ("_extend_last", "_plan", "_preps", "parsed")

    def __init__(self, parsed: ParsedQuery, base: ParsedQuery | None = None) -> None:
        if parsed.mode != "tokens":
            raise ValueError("TokenMatcher takes token queries")
        self.parsed = parsed
        preps: list[tuple[str, str, str]] = []
        for token in parsed.tokens:
            if token.kind == "phrase":
                phrase = normalize_whitespace_lower(token.value)
                preps.append(("phrase", utf16(phrase), "") if phrase else ("skip", "", ""))
            else:
                ql = js_lower(token.value)
                preps.append(("fuzzy", utf16(ql), _swapped(ql)))
        self._preps = preps
        self._plan: list[tuple[str, str]] | None = None
        self._extend_last: str | None = None
        if base is not None:
            self.start_from(base)

    def start_from(self, base: ParsedQuery | None) -> bool:
        """Let :meth:`match` start from ``base``'s outcomes (None: from nothing); whether it can."""
        plan = self._plan = self.plan(base) if base is not None else None
        # The usual keystroke: the same tokens, the last one a character longer. Then only the
        # new characters of the last token are matched, and the others' sum is taken as it was.
        self._extend_last = None
        if plan is not None and len(plan) == len(self._preps) and plan[-1][0] == "more":
            self._extend_last = self._preps[-1][1][len(plan[-1][1]) :]
        return plan is not None

    def plan(self, base: ParsedQuery) -> list[tuple[str, str]] | None:
        """How this query extends ``base`` (None: it does not): per token of ``base``, "same"
        or "more" (the last one, typed further), with the lower-cased token it had."""
        old, new = base.tokens, self.parsed.tokens
        if base.mode != "tokens" or not old or len(new) < len(old) or old[:-1] != new[: len(old) - 1]:
            return None
        plan = [("same", "")] * (len(old) - 1)
        a, b = old[-1], new[len(old) - 1]
        if a == b:
            plan.append(("same", ""))
            return plan
        if a.kind == b.kind == "fuzzy":
            q_old = utf16(js_lower(a.value))
            if self._preps[len(old) - 1][1].startswith(q_old):
                plan.append(("more", q_old))
                return plan
        return None

    @property
    def extends(self) -> bool:
        """Whether this matcher starts from the base query's outcomes."""
        return self._plan is not None

    def match(self, tl: str, before: Outcome | None = None) -> Outcome | None:
        """The outcome on the text ``tl`` (its score first), or None when it does not match.
        ``before``: the base query's outcome on the same text (a matcher told to
        :meth:`start_from` it), to start from."""
        if before is not None and (suffix := self._extend_last) is not None:
            _, q, swapped = self._preps[-1]
            head = before[1]
            # The last token's fields: ok, score, matched as typed, raw score, last, consecutive.
            typed = before[-4] and len(q) <= len(tl)
            r = _advance(suffix, tl, before[-3], before[-2], before[-1]) if typed else None
            if r is not None:
                score = r[0] - 100 if q == tl else r[0]
                if len(before) == 2 + _FIELDS:
                    return (head + score, head, True, score, True, r[0], r[1], r[2])
                return (head + score, head, *before[2:-_FIELDS], True, score, True, r[0], r[1], r[2])
            if swapped and (m := _match_lowered(swapped, tl))[0]:
                score = m[1] + 5
                return (head + score, head, *before[2:-_FIELDS], True, score, False, 0, -1, 0)
            return None
        plan = self._plan if before is not None else None
        total: float = 0
        head: float = 0
        fields: list[Any] = []
        collapsed: str | None = None
        last = len(self._preps) - 1
        for n, (kind, q, swapped) in enumerate(self._preps):
            if n == last:
                head = total
            how = plan[n] if plan is not None and n < len(plan) else None
            at = 2 + n * _FIELDS
            if how is not None and how[0] == "same":
                state = before[at : at + _FIELDS]  # type: ignore[index]
            elif kind == "skip":
                state = (None, 0, False, 0, -1, 0)
            elif kind == "phrase":
                if collapsed is None:
                    collapsed = _collapse(tl)
                idx = collapsed.find(q)
                if idx < 0:
                    return None
                state = (True, idx * 0.1, False, 0, -1, 0)
            else:
                r = None
                if how is not None:
                    old = before[at : at + _FIELDS]  # type: ignore[index]
                    # Matched as typed before: go on from there. (Matched only with letters and
                    # digits swapped: the longer token cannot match as typed either.)
                    if old[2] and len(q) <= len(tl):
                        r = _advance(q[len(how[1]) :], tl, old[3], old[4], old[5])
                elif not q:
                    r = (0, -1, 0)
                elif len(q) <= len(tl):
                    r = _advance(q, tl, 0, -1, 0)
                if r is not None:
                    state = (True, r[0] - 100 if q and q == tl else r[0], True, *r)
                elif swapped and (m := _match_lowered(swapped, tl))[0]:
                    state = (True, m[1] + 5, False, 0, -1, 0)
                else:
                    return None
            fields.extend(state)
            if state[0] is None:
                continue
            total += state[1]
        return (total, head, *fields)


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
    if type(m) is float:
        return m if m == m else float("-inf")
    if isinstance(m, int | float) and m == m:
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
            m = re.search(f"[{_WS_CLASS}]+".join(words), text, re.IGNORECASE)
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
