"""The line index's fast path: a message line's tree fields, decoded without its body.

Reading a big session is mostly decoding message lines whose bodies are not kept (they are read
again from the file when shown). :func:`message_entry` decodes such a line with msgspec into
structs that declare only what an :class:`~pitui.store.model.Entry` keeps (type, id, parentId,
timestamp, the message's role, provider, model, stop reason, usage and content blocks' type and
text): the rest of the line is validated as JSON but never built into Python objects.
After the header, :func:`read_lines` decodes a run of lines in one call (a megabyte at a time)
and makes the entries of its message lines; a run that is not one JSON object per line is read
a line at a time, each line by :func:`message_entry` or the exact path.

It is exact by refusing: anything it cannot decide the way the exact path
(:func:`pitui.store.jsonl.parse_line` and the reader's rules) would, it leaves to that path
(returns None). msgspec was checked against orjson and ``JSON.parse`` for this:

- a line msgspec accepts, the exact path accepts too (it is stricter only about invalid UTF-8
  and numbers too big for a double, which the exact path reads as U+FFFD and infinity, in fields
  this path skips and so never sees);
- duplicate keys: the last one wins, as in JavaScript, and an escaped key (``"typ\\u0065"``) is
  the same key; a lone surrogate, invalid UTF-8 in a kept field, a number out of range or
  nesting too deep is refused;
- a field of an unexpected type (an id that is a number, a block that is not an object) is
  refused, so every odd entry is read with every rule;
- the message is decoded by its role, in one pass: a message with no role, an unknown one or
  two different ones is refused;
- an integer beyond 2**53 in the usage is refused (orjson reads those beyond 64 bits as doubles,
  msgspec as integers).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

import msgspec

from pitui.store.js import JS_WHITESPACE, MISSING, js_trim
from pitui.store.model import SAFE_INTEGER, Entry, LineSource

# A figure of the usage: a double, or an integer a double holds exactly (orjson reads integers
# beyond 64 bits as doubles, msgspec as integers: those are left to the exact path).
_Number = Annotated[int, msgspec.Meta(gt=-SAFE_INTEGER, lt=SAFE_INTEGER)] | float


class _Block(msgspec.Struct):
    type: str = MISSING
    text: str = MISSING


class _Cost(msgspec.Struct):
    total: _Number


class _Usage(msgspec.Struct):
    """Usage as pi writes it: all four figures and the cost's total, or the exact path."""

    input: _Number
    output: _Number
    cacheRead: _Number
    cacheWrite: _Number
    cost: _Cost


# A message is decoded by its role, each role into only the fields its entry keeps: an assistant
# message's content in the same pass (its blocks' type and text), a tool result's usage, nothing
# of the others. A message with no role, an unknown one or two different ones is refused.
class _Assistant(msgspec.Struct, tag_field="role", tag="assistant"):
    provider: str = MISSING
    model: str = MISSING
    stopReason: str | None = MISSING
    content: str | list[_Block] = MISSING
    usage: _Usage | None = MISSING


class _ToolResult(msgspec.Struct, tag_field="role", tag="toolResult"):
    usage: _Usage | None = MISSING


class _User(msgspec.Struct, tag_field="role", tag="user"):
    pass


class _System(msgspec.Struct, tag_field="role", tag="system"):
    pass


class _Custom(msgspec.Struct, tag_field="role", tag="custom"):
    pass


class _BashExecution(msgspec.Struct, tag_field="role", tag="bashExecution"):
    pass


class _BranchSummary(msgspec.Struct, tag_field="role", tag="branchSummary"):
    pass


class _CompactionSummary(msgspec.Struct, tag_field="role", tag="compactionSummary"):
    pass


_Message = _Assistant | _ToolResult | _User | _System | _Custom | _BashExecution | _BranchSummary | _CompactionSummary
# The role of each, one string shared by every entry rather than one per line.
_ROLES: dict[type, str] = {kind: kind.__struct_config__.tag for kind in get_args(_Message)}


class _Line(msgspec.Struct):
    # Only message lines are read here (the rest keep their whole value): another type is
    # refused at once, and the one string every such line shares is not made again per line.
    type: Literal["message"] = MISSING
    id: str = MISSING
    parentId: str | None = MISSING
    timestamp: str = MISSING
    message: _Message = MISSING


_line_decoder = msgspec.json.Decoder(_Line)
_REFUSED = (msgspec.DecodeError, RecursionError)
_JS_SPACE = frozenset(JS_WHITESPACE)


def decode_line(line: bytes) -> _Line | None:
    """The fields of ``line`` the index keeps, or None when the exact path must read it."""
    try:
        return _line_decoder.decode(line)
    except _REFUSED:
        return None


def message_entry(line: bytes, number: int, offset: int, source: LineSource | None, before: Any = None) -> Entry | None:
    """The entry of a message line (its body not kept), or None: the line is not a message, or
    is one this path leaves to the exact rules. ``before``: the id of the entry before it.

    The role's fields follow :class:`~pitui.store.model.Entry`'s rules (``textless_message``,
    ``usage_figures``) on the decoded structs; ``tests/store/test_fastline.py`` holds the two to
    the same results."""
    try:
        value = _line_decoder.decode(line)
    except _REFUSED:
        return None
    if value.type is MISSING:
        return None  # the exact path reads it (an entry without a type)
    return _entry(value, number, offset, len(line), source, before)


def _entry(
    value: _Line | _AnyLine, number: int, offset: int, length: int, source: LineSource | None, before: Any
) -> Entry:
    """The entry of a decoded message line, ``before`` the id of the entry before it."""
    parent = value.parentId
    # Most parentIds are the id just read (pi appends a turn under the last): that string is
    # held, not a copy (1,000,000 of them are 57 MB).
    if parent == before and type(before) is str:
        parent = before
    message = value.message
    role = MISSING if message is MISSING else _ROLES[type(message)]
    provider_model: tuple[Any, Any] | None = None
    textless = False
    figures: tuple[Any, ...] | None = None
    if type(message) is _Assistant:
        content = message.content
        model = (message.provider, message.model)
        # The few providers and models are shared by every entry, not held once per line.
        provider_model = _MODELS.get(model) or _share(model)
        textless = _textless(message.stopReason, content)
        usage = message.usage
        if usage:
            calls = 0
            if type(content) is list:
                for block in content:
                    if block.type == "toolCall":
                        calls += 1
            figures = (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cost.total, calls)
    elif type(message) is _ToolResult:
        usage = message.usage
        figures = (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cost.total, 0) if usage else ()
    # (positional, in Entry's field order: the fastest way to make one)
    return Entry(
        "message",
        value.id,
        parent,
        value.timestamp,
        number,
        offset,
        length,
        role,
        provider_model,
        textless,
        figures,
        source,
        None,
    )


# ------------------------------------------------------------------ many lines in one call


class _AnyLine(msgspec.Struct):
    """A line of any type, as :func:`read_lines` decodes a run of them in one call: a message's
    fields as :class:`_Line` declares them; a line of another type is read again by the exact
    path (a field of an unexpected type in it refuses the whole run, read a line at a time)."""

    type: str = MISSING
    id: str = MISSING
    parentId: str | None = MISSING
    timestamp: str = MISSING
    message: _Message = MISSING


_decode_lines = msgspec.json.Decoder(_AnyLine).decode_lines
_OPEN, _CLOSE, _CR = ord("{"), ord("}"), ord("\r")
# What one call decodes: lines up to this many bytes, the last one whole (the structs of a run
# are held until its entries are made: a megabyte of a session is about a thousand lines).
RUN_BYTES = 1 << 20


def read_lines(
    data: bytes,
    start: int,
    stop: int,
    number: int,
    base_offset: int,
    source: LineSource | None,
    entries: list[Entry],
    exact: Callable[[int, int, bytes], object],
) -> int | None:
    """The lines of ``data[start:stop]`` (whole lines, ``start`` the start of line ``number``;
    offsets count from ``base_offset``) decoded in one call to msgspec: each message line's
    entry appended to ``entries``, each other line given to ``exact(number, offset, line)``
    in file order; the number of the line after them. None when the run is not one JSON object
    per line, or msgspec refuses a line: then the caller takes back what was appended and reads
    the lines one at a time.

    ``decode_lines`` reads values apart by any whitespace, so it is held to the lines as the
    listing's scan holds it (``ScanState.feed_lines``): as many values as lines, each line
    starting with ``{`` and ending with ``}`` (or ``}`` and a carriage return, a file written
    with CRLF). A value cannot run on past a line that ends so (a string holds no raw newline;
    inside an object the next line's ``{`` is refused), so each line is exactly one value, as
    JSON.parse reads it. Any other line (blank, spaces around it) fails the check.
    """
    try:
        values = _decode_lines(memoryview(data)[start:stop])
    except _REFUSED:
        return None
    find, append = data.find, entries.append
    i = start
    for value in values:
        if i >= stop:
            return None  # more values than lines
        j = find(b"\n", i, stop)
        if j < 0:
            j = stop  # the last line, with no newline after it
        last = data[j - 1]
        if j == i or data[i] != _OPEN or not (last == _CLOSE or (last == _CR and data[j - 2] == _CLOSE)):
            return None
        if value.type == "message":
            append(_entry(value, number, base_offset + i, j - i, source, entries[-1].id if entries else None))
        else:
            exact(number, base_offset + i, data[i:j])
        i = j + 1
        number += 1
    return number if i >= stop else None  # every line had its value


def run_end(data: bytes, start: int, stop: int) -> int:
    """Where a run of lines from ``start`` ends: after the first line that reaches
    ``RUN_BYTES`` past ``start``, or at ``stop``."""
    if stop - start <= RUN_BYTES:
        return stop
    at = data.find(b"\n", start + RUN_BYTES - 1, stop)
    return stop if at < 0 else at + 1


_MODELS: dict[tuple[Any, Any], tuple[Any, Any]] = {}
_MODELS_KEPT = 512


def _share(model: tuple[Any, Any]) -> tuple[Any, Any]:
    if len(_MODELS) < _MODELS_KEPT:
        _MODELS[model] = model
    return model


def _textless(stop: str | None, content: str | list[_Block] | None) -> bool:
    """``textless_message`` on the decoded fields."""
    if stop and stop != "stop" and stop != "toolUse":
        return False
    if type(content) is str:
        return not content or (content[0] in _JS_SPACE and js_trim(content) == "")
    if type(content) is list:
        for block in content:
            if block.type == "text":
                text = block.text
                if text and (text[0] not in _JS_SPACE or js_trim(text) != ""):
                    return False
    return True
