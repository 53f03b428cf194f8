"""Reading and writing JSONL lines exactly as pi does: bytes to lines to values, and back.

pi reads a session with ``content.trim().split("\\n")`` and ``JSON.parse`` on each line, skipping
lines that do not parse. This module reproduces that on bytes, without decoding a whole file at
once (:func:`iter_lines`, :func:`split_lines`, :func:`parse_line`, :func:`parse_fast`), and writes
lines the way ``JSON.stringify`` does (:func:`dumps`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, cast

import orjson

from pitui.store.js import MISSING, Opaque, is_js_blank, js_number_string, strip_js_whitespace


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


def parse_fast(line: bytes) -> Any:
    """:func:`parse_line` with orjson tried first on a line that starts with ``{`` (nearly every
    line of a session); anything else takes the slower rules, which copy no huge junk."""
    if line[:1] == b"{":
        try:
            return _loads(line)
        except _DecodeError:
            pass
    return parse_line(line, orjson_refused=True)  # the slower rules for what orjson refuses


_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError

BLOCK = 1 << 20  # what a file is read in (memory: one block plus the longest line)


def iter_lines(
    source: bytes | int,
    start: int = 0,
    end: int | None = None,
    number: int = 1,
    *,
    base_offset: int = 0,
    blanks: bool = False,
    before_block: Callable[[], object] | None = None,
    block: int = BLOCK,
) -> Iterator[tuple[int, int, bytes]]:
    """The lines of a buffer, or of a file descriptor read in blocks, as ``(1-based line number,
    byte offset, bytes without the newline)``: plain tuples, since a 100,000-line file makes
    100,000 of them. The last line may lack its newline.

    ``start`` is the start of a line (line ``number``), ``end`` the end of the data (the end of
    the buffer, or of the file). Reading resumes anywhere a line starts: the offset just past the
    last newline read, with the next line number. Only ``\\n`` separates lines (U+2028 inside a
    string is not a line break). Lines that are blank as JavaScript trims them are left out unless
    ``blanks``. A buffer's offsets count from ``base_offset`` (where it was read from the file).

    A file (``source`` a descriptor) is read with ``pread`` from ``start``; a line longer than a
    block is gathered in pieces and joined once. ``before_block`` is called before each read,
    and may raise to stop (a cancelled preview, say).
    """
    if type(source) is int:
        return _file_lines(source, start, end, number, blanks, before_block, block)
    data = cast(bytes, source)  # not exactly an int, so the buffer (mypy still expects an int subclass)
    return _buffer_lines(data, start, len(data) if end is None else end, number, base_offset, blanks)


def _buffer_lines(
    data: bytes, start: int, end: int, number: int, base_offset: int, blanks: bool
) -> Iterator[tuple[int, int, bytes]]:
    find = data.find
    while start < end:
        stop = find(b"\n", start, end)
        if stop < 0:
            stop = end
        line = data[start:stop]  # one line at a time: a 100 MB file is never copied whole
        if blanks or line[:1] == b"{" or not is_js_blank(line):
            yield number, base_offset + start, line
        number += 1
        start = stop + 1


def _file_lines(
    fd: int,
    start: int,
    end: int | None,
    number: int,
    blanks: bool,
    before_block: Callable[[], object] | None,
    block: int,
) -> Iterator[tuple[int, int, bytes]]:
    offset = start  # where the current line starts
    done = start  # how far the file was read
    pieces: list[bytes] = []
    pread = os.pread
    while end is None or done < end:
        if before_block is not None:
            before_block()
        chunk = pread(fd, block if end is None else min(block, end - done), done)
        if not chunk:
            break  # the file shrank while being read
        done += len(chunk)
        at = 0
        find = chunk.find
        while (stop := find(b"\n", at)) >= 0:
            line = chunk[at:stop]
            if pieces:
                pieces.append(line)
                line = b"".join(pieces)
                pieces.clear()
            if blanks or line[:1] == b"{" or not is_js_blank(line):
                yield number, offset, line
            offset += len(line) + 1
            number += 1
            at = stop + 1
        if at < len(chunk):
            pieces.append(chunk[at:])
    if pieces:
        line = b"".join(pieces)
        if blanks or line[:1] == b"{" or not is_js_blank(line):
            yield number, offset, line


def split_lines(
    data: bytes, base_offset: int = 0, first_number: int = 1, trim_start: bool = True, end: int | None = None
) -> Iterator[tuple[int, int, bytes]]:
    """The non-blank lines of ``data`` (of its first ``end`` bytes) as pi sees them after
    ``trim().split("\\n")`` (see :func:`iter_lines`).

    Whitespace at the very start and end of the content (a BOM, say) is dropped, as ``trim()``
    drops it; data that continues a file (``trim_start=False``) has no start to trim.
    """
    head, tail = content_range(data, trim_start, end)
    # Line numbers count from the real start of the data, not the trimmed one.
    return _buffer_lines(data, head, tail, first_number + data.count(b"\n", 0, head), base_offset, False)


def content_range(
    data: bytes, trim_start: bool = True, end: int | None = None, *, trim_end: bool = True
) -> tuple[int, int]:
    """Where the lines of ``data`` (of its first ``end`` bytes) start and end once trimmed as
    :func:`split_lines` trims them (``trim_end``: at the end too)."""
    head = strip_js_whitespace(data, start=True) if trim_start else 0
    tail = len(data) if end is None else end
    if trim_end:
        tail -= strip_js_whitespace(data, start=False, end=tail)
    return head, tail


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
            return orjson.Fragment(
                b"{"
                + b",".join(
                    _string_json(key) + b":" + orjson.dumps(_escape_surrogates(item)) for key, item in value.items()
                )
                + b"}"
            )
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
    if type(value) in _AS_IS:  # (most values of a report: checked first, by exact type)
        return value
    if isinstance(value, dict):
        return {k: prepare(v) for k, v in value.items() if v is not MISSING}
    if isinstance(value, Opaque):
        return prepare(value.value)
    if isinstance(value, list):
        return [None if v is MISSING else prepare(v) for v in value]
    if isinstance(value, float) or (
        isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _SAFE_INTEGER
    ):
        return _stringify_number(value)
    return value


_SAFE_INTEGER = 2**53
_AS_IS = frozenset((str, bool, type(None)))


def _stringify_number(value: float | int) -> Any:
    """A number spelt as JSON.stringify spells it (``0.000009``, not ``9e-6``; ``1``, not ``1.0``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON.stringify(NaN) is null
    if isinstance(value, float) and value.is_integer() and abs(value) < _SAFE_INTEGER:
        return int(value)
    return orjson.Fragment(js_number_string(value).encode())


def compact_json(value: Any) -> str:
    """A value as one line of JSON to show, not to write: non-ASCII kept, '' for a missing
    value, ``repr`` for what JSON cannot hold (files are written by :func:`dumps`)."""
    if value is MISSING:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return repr(value)
