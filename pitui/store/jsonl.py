"""Reading and writing JSONL lines exactly as pi does.

pi reads a session with ``content.trim().split("\\n")`` and ``JSON.parse`` on each line, skipping
lines that do not parse. This module reproduces that on bytes, without decoding a whole file at
once, and writes lines the way ``JSON.stringify`` does.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import orjson

# JavaScript's String.prototype.trim() strips these (WhiteSpace and LineTerminator).
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_WHITESPACE_BYTES = tuple(sorted({c.encode() for c in JS_WHITESPACE}, key=len, reverse=True))


class Missing:
    """A key that is absent (JavaScript ``undefined``), as opposed to ``null``."""

    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = Missing()


class Opaque:
    """An id that is a JSON array or object. JavaScript's Map compares such keys by identity,
    so it equals nothing but itself; Python could not hash it at all. Written back as the value
    it stands for (a label's parent when such an entry is the leaf, say), as pi writes it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Opaque({self.value!r})"


def as_key(value: Any) -> Any:
    """``value`` usable as a dict key with JavaScript Map semantics."""
    return Opaque(value) if type(value) is list or type(value) is dict else value


def js_trim(text: str) -> str:
    """``String.prototype.trim``: Python's ``str.strip`` knows a different set of spaces."""
    return text.strip(JS_WHITESPACE)


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness: ``[]`` and ``{}`` are true, ``""``, ``0``, ``NaN``, null are false."""
    if value is None or value is MISSING or value is False:
        return False
    if isinstance(value, str):
        return value != ""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    return True


class BadLine(ValueError):
    """A line that ``JSON.parse`` would reject."""


_JSON_SPACE = re.compile(rb"[ \t\r\n]*")
_JSON_VALUE_START = frozenset(b'{["-0123456789tfn')


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# What a reader's own orjson call did not parse (no JSON value is this object).
UNPARSED: Any = object()


def parse_line(line: bytes, *, orjson_refused: bool = False) -> Any:
    """Parse one line as ``JSON.parse`` would, or raise :class:`BadLine`.

    Bytes that are not UTF-8 become U+FFFD first, as Node's decoder makes them. orjson refuses a
    few things JSON.parse takes (lone surrogate escapes, deep nesting, huge integers): those go
    through the standard library, with the non-JSON constants it would otherwise allow refused.
    """
    # A line that cannot even start a JSON value is refused before anything copies it: a crash
    # can leave hundreds of megabytes of NUL bytes, and orjson (which copies its input) and the
    # decoding below would each cost their size again. The reason is the one json.loads gives
    # (a non-ASCII first byte goes the long way, for its own reason).
    start = _JSON_SPACE.match(line).end()  # type: ignore[union-attr]
    if start == len(line) or (line[start] < 0x80 and line[start] not in _JSON_VALUE_START):
        raise BadLine(f"not valid JSON (Expecting value at column {start + 1})")
    if not orjson_refused:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass
    text = line.decode("utf-8", errors="replace")
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as error:
        raise BadLine(_short_reason(error)) from None


def _short_reason(error: Exception) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"not valid JSON ({error.msg} at column {error.colno})"
    if isinstance(error, RecursionError):
        return "not valid JSON (nested too deeply)"
    return f"not valid JSON ({error})"


# The first bytes of the UTF-8 of JavaScript's whitespace: a line starting with any other byte
# is not blank, and is not decoded to find that out.
JS_SPACE_LEADS = frozenset(c.encode()[0] for c in JS_WHITESPACE)


def _is_js_blank(line: bytes) -> bool:
    if line and line[0] not in JS_SPACE_LEADS:
        return False
    return not line.strip() or js_trim(line.decode("utf-8", errors="replace")) == ""


def _strip_js_whitespace(data: bytes, *, start: bool) -> int:
    """How many bytes of JavaScript whitespace ``data`` starts (or ends) with."""
    count = 0
    while True:
        for ws in _JS_WHITESPACE_BYTES:
            if start and data.startswith(ws, count):
                count += len(ws)
                break
            if not start and data.endswith(ws, 0, len(data) - count):
                count += len(ws)
                break
        else:
            return count


def split_lines(data: bytes, base_offset: int = 0, first_number: int = 1,
                trim_start: bool = True) -> Iterator[tuple[int, int, bytes]]:
    """The non-blank lines of ``data`` as pi sees them after ``trim().split("\\n")``, as
    ``(1-based line number, byte offset, bytes without the newline)``: plain tuples, since a
    100,000-line file makes 100,000 of them.

    Only ``\\n`` separates lines (U+2028 inside a string is not a line break). Whitespace at the
    very start and end of the content (a BOM, say) is dropped, as ``trim()`` drops it; data that
    continues a file (``trim_start=False``) has no start to trim.
    """
    head = _strip_js_whitespace(data, start=True) if trim_start else 0
    tail = len(data) - _strip_js_whitespace(data, start=False)
    # Line numbers count from the real start of the data, not the trimmed one.
    number = first_number + data.count(b"\n", 0, head)
    start = head
    find = data.find
    while start < tail:
        end = find(b"\n", start, tail)
        if end < 0:
            end = tail
        line = data[start:end]  # one line at a time: a 100 MB file is never copied whole
        if line[:1] == b"{" or not _is_js_blank(line):
            yield number, base_offset + start, line
        number += 1
        start = end + 1


def dumps(value: Any, *, indent: bool = False, prepared: bool = False) -> bytes:
    """``JSON.stringify(value)``: compact, non-ASCII kept, keys that are MISSING left out,
    numbers spelt as JavaScript spells them.

    A lone surrogate (which JSON.parse accepts from ``\\ud800``) is written back as that escape,
    as JSON.stringify writes it; orjson refuses such strings, so they are written beforehand.
    ``prepared``: the value already went through :func:`prepare` (a large report need not be
    walked twice).
    """
    if not prepared:
        value = prepare(value)
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        return orjson.dumps(value, option=option)
    except TypeError:
        return orjson.dumps(_escape_surrogates(value), option=option)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return orjson.Fragment(_string_json(value)) if _LONE_SURROGATE.search(value) else value
    if isinstance(value, dict):
        if any(_LONE_SURROGATE.search(key) for key in value):  # a key cannot be a fragment
            return orjson.Fragment(b"{" + b",".join(
                _string_json(key) + b":" + orjson.dumps(_escape_surrogates(item)) for key, item in value.items()
            ) + b"}")
        return {key: _escape_surrogates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escape_surrogates(item) for item in value]
    return value


def _string_json(text: str) -> bytes:
    """A string as JSON.stringify writes it, lone surrogates as ``\\u`` escapes."""
    quoted = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted).encode()


def prepare(value: Any) -> Any:
    """A JSON value ready for orjson: MISSING keys dropped, numbers spelt as JavaScript does."""
    if isinstance(value, dict):
        return {k: prepare(v) for k, v in value.items() if v is not MISSING}
    if isinstance(value, Opaque):
        return prepare(value.value)
    if isinstance(value, list):
        return [None if v is MISSING else prepare(v) for v in value]
    if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)
                                    and abs(value) >= _SAFE_INTEGER):
        return _js_number(value)
    return value


_SAFE_INTEGER = 2**53


def _js_number(value: float | int) -> Any:
    """A number spelt as JSON.stringify spells it (``0.000009``, not ``9e-6``; ``1``, not ``1.0``)."""
    from pitui.store.js import js_number_string

    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON.stringify(NaN) is null
    if isinstance(value, float) and value.is_integer() and abs(value) < _SAFE_INTEGER:
        return int(value)
    return orjson.Fragment(js_number_string(value).encode())
