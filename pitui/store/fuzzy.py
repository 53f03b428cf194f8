"""Fuzzy and phrase matching on lower-cased UTF-16 text: pi-tui's ``fuzzyMatch`` and the
incremental :class:`TokenMatcher` the catalog answers each keystroke with.

Scores are pi-tui's to the last bit (indexes count UTF-16 code units, as JavaScript strings do),
so results come out in pi's order. ``normalizeWhitespaceLower`` (pi's
``session-selector-search.js``) is here because phrase tokens match on its output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pitui.store.js import JS_WHITESPACE, js_lower, js_trim, utf16
from pitui.store.jsregex import JS_SPACE_CLASS

if TYPE_CHECKING:
    from pitui.store.query import ParsedQuery

__all__ = [
    "BOUNDARY_CHARS",
    "FuzzyResult",
    "Outcome",
    "TokenMatcher",
    "collapse_whitespace",
    "fuzzy_lowered",
    "fuzzy_match",
    "lowered_utf16",
    "normalize_whitespace_lower",
]

# pi-tui's word boundary class [\s\-_./:]
BOUNDARY_CHARS = frozenset(JS_WHITESPACE + "-_./:")
_WS_RUN = re.compile(f"[{JS_SPACE_CLASS}]+")
_LETTERS_DIGITS = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_LETTERS = re.compile(r"([0-9]+)([a-z]+)")


@dataclass(frozen=True, slots=True)
class FuzzyResult:
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


def fuzzy_lowered(query: str, text_lower16: str) -> tuple[bool, float, list[int] | None, str]:
    """pi-tui's ``fuzzyMatch`` of ``query`` on a lower-cased UTF-16 text: ``(matches, score,
    matched positions, the form of the query that matched)``, letters and digits swapped
    (``abc12`` as ``12abc``) when the query as typed does not match."""
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
    ok, score, _, _ = fuzzy_lowered(query, utf16(js_lower(text)))
    return FuzzyResult(ok, score)


# --------------------------------------------------------------------------------------------
# The incremental matcher


# A text's outcome, kept so that the next keystroke can start from it: one flat tuple (a search
# makes one per session and keystroke: nested ones would be garbage for the collector to
# chase), ``(total score, sum of the scores of all tokens but the last, *token fields)``, six
# fields a token: fuzzy ``(True, score, matched as typed, score before the whole-text bonus,
# last index, consecutive run)``; phrase ``(True, score, False, 0, -1, 0)``; an empty phrase
# ``(None, 0, False, 0, -1, 0)``.
Outcome = tuple[Any, ...]
_FIELDS = 6


def _advance(
    q: str, tl: str, score: float, last: int, consecutive: int, positions: list[int] | None = None
) -> tuple[float, int, int] | None:
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
            head: float = before[1]
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
        head = 0
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
                    collapsed = collapse_whitespace(tl)
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
