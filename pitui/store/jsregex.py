"""JavaScript regular expressions in Python's ``re``: the translation pi's ``re:`` queries need.

pi runs ``new RegExp(pattern, "i")``; Python's ``re`` reads most of that syntax the same way, and
:func:`translate_js_regex` rewrites the constructs it reads differently.
"""

from __future__ import annotations

from pitui.store.js import JS_WHITESPACE

__all__ = ["JS_SPACE_CLASS", "translate_js_regex"]

# JavaScript's \s, as the inside of a character class
JS_SPACE_CLASS = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)

_WORD = "A-Za-z0-9_"
_JS_ESCAPES_OUTSIDE = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{JS_SPACE_CLASS}]",
    "S": f"[^{JS_SPACE_CLASS}]",
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
    "/": "/",
}
_JS_ESCAPES_INSIDE = {"d": "0-9", "w": _WORD, "s": JS_SPACE_CLASS, "b": "\\x08", "/": "/"}


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
