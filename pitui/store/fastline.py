"""The line index's fast path: a message line's tree fields, decoded without its body.

Reading a big session is mostly decoding message lines whose bodies are not kept (they are read
again from the file when shown). :func:`message_entry` decodes such a line with msgspec into
structs that declare only what an :class:`~pitui.store.model.Entry` keeps (type, id, parentId,
timestamp, the message's role, provider, model, stop reason, usage and content blocks' type and
text): the rest of the line is validated as JSON but never built into Python objects.

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


def message_entry(line: bytes, number: int, offset: int, source: LineSource | None) -> Entry | None:
    """The entry of a message line (its body not kept), or None: the line is not a message, or
    is one this path leaves to the exact rules.

    The role's fields follow :class:`~pitui.store.model.Entry`'s rules (``textless_message``,
    ``usage_figures``) on the decoded structs; ``tests/store/test_fastline.py`` holds the two to
    the same results."""
    try:
        value = _line_decoder.decode(line)
    except _REFUSED:
        return None
    if value.type is MISSING:
        return None  # the exact path reads it (an entry without a type)
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
        value.parentId,
        value.timestamp,
        number,
        offset,
        len(line),
        role,
        provider_model,
        textless,
        figures,
        source,
        None,
    )


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
