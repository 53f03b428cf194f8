"""The conversation on a path: what the model sees from the root to an entry, as plain items.

:func:`context_items` follows pi's context rules through the session's own
:meth:`~pitui.store.reader.Session.projection` (pi 1.6.0's ``buildSessionProjection``,
:mod:`pitui.store.context`) and turns each context
message into one item a view can show without reading the file again: decoded text, tool calls
with their arguments, images as placeholders (their data is dropped), usage and cost.

Every item carries the id of the entry it comes from (a compaction's system prompt checkpoint
and summary both carry the compaction's). Context edits are applied: an omitted message gives
no item, a replaced one its new content. A compaction also lists the entries it replaced, so a
view can ask :func:`replaced_items` for them when the user opens it.

Each entry's line is decoded once per call; nothing is cached here.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable
from typing import Any

from msgspec import Struct, field

from pitui.store.context import context_messages
from pitui.store.js import MISSING, js_double, js_truthy
from pitui.store.jsonl import compact_json
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.totals import SessionStats, session_stats

__all__ = [
    "AssistantMessage",
    "BashExecution",
    "BranchSummary",
    "CompactionSummary",
    "CustomMessage",
    "ImagePart",
    "Item",
    "OtherMessage",
    "Part",
    "TextPart",
    "ThinkingPart",
    "ToolCallPart",
    "ToolResult",
    "Totals",
    "Usage",
    "UserMessage",
    "context_items",
    "entry_items",
    "item_from_message",
    "path_totals",
    "replaced_items",
    "session_totals",
    "totals",
]

# ---------------------------------------------------------------------------------------------
# parts of a message


class TextPart(Struct, frozen=True):
    text: str


class ThinkingPart(Struct, frozen=True):
    text: str
    redacted: bool = False


class ToolCallPart(Struct, frozen=True):
    """A tool call: ``arguments`` is the decoded JSON value as the model wrote it (so a part
    with object arguments compares by value but cannot be hashed)."""

    call_id: str
    name: str
    arguments: Any

    @property
    def arguments_json(self) -> str:
        """The arguments as compact JSON (non-ASCII kept)."""
        return compact_json(self.arguments)


class ImagePart(Struct, frozen=True):
    """An image, without its data: its MIME type and the size of the decoded bytes."""

    mime_type: str
    size: int


Part = TextPart | ThinkingPart | ToolCallPart | ImagePart


class Usage(Struct, frozen=True):
    """Tokens and cost (in dollars) of one model call, or a sum of them."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.total_tokens + other.total_tokens,
            self.cost + other.cost,
        )


# ---------------------------------------------------------------------------------------------
# items: one per context message


class UserMessage(Struct, frozen=True):
    entry_id: Any
    parts: tuple[Part, ...]


class AssistantMessage(Struct, frozen=True):
    entry_id: Any
    parts: tuple[Part, ...]
    provider: str = ""
    model: str = ""
    usage: Usage | None = None
    stop_reason: str = ""
    error_message: str = ""


class ToolResult(Struct, frozen=True):
    entry_id: Any
    tool_name: str
    parts: tuple[Part, ...]
    is_error: bool = False
    tool_call_id: str = ""
    usage: Usage | None = None

    @property
    def output(self) -> str:
        """The text of the result (its text parts, one after the other)."""
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))


class BashExecution(Struct, frozen=True):
    """A command the user ran with ``!`` (``excluded``: ``!!``, not sent to the model)."""

    entry_id: Any
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    excluded: bool = False
    full_output_path: str = ""


class CustomMessage(Struct, frozen=True):
    """A message an extension put into the context (``display``: whether pi shows it)."""

    entry_id: Any
    custom_type: str
    parts: tuple[Part, ...]
    display: bool = True


class BranchSummary(Struct, frozen=True):
    entry_id: Any
    summary: str
    from_id: Any = None
    usage: Usage | None = None


class CompactionSummary(Struct, frozen=True):
    """A compaction as the model sees it: its summary, in place of the entries it replaced.

    ``replaced_ids`` are the entries whose messages the model saw just before the compaction
    and no longer sees (an earlier compaction among them stands for what it replaced in turn);
    :func:`replaced_items` gives their items.
    """

    entry_id: Any
    summary: str
    tokens_before: int | None = None
    replaced_ids: tuple[Any, ...] = ()
    usage: Usage | None = None

    @property
    def replaced_count(self) -> int:
        return len(self.replaced_ids)


class OtherMessage(Struct, frozen=True):
    """A message of a role pi does not know (it passes them into the context as they are)."""

    entry_id: Any
    role: str
    parts: tuple[Part, ...] = ()


Item = (
    UserMessage
    | AssistantMessage
    | ToolResult
    | BashExecution
    | CustomMessage
    | BranchSummary
    | CompactionSummary
    | OtherMessage
)


class Totals(Struct, frozen=True):
    """Usage summed over messages: what they cost."""

    usage: Usage = field(default_factory=Usage)
    assistant_messages: int = 0

    def __add__(self, other: Totals) -> Totals:
        return Totals(self.usage + other.usage, self.assistant_messages + other.assistant_messages)


# ---------------------------------------------------------------------------------------------
# building items


def context_items(session: Session, entry_id: Any = MISSING) -> list[Item]:
    """What the model sees on the path root..``entry_id``, one item per context message.

    ``entry_id`` follows pi's rules: left out, the session's leaf; None, nothing; an id that is
    not in the session, the last entry in the file.
    """
    items: list[Item] = []
    for projected in session.projection(entry_id):
        items.extend(_items(session, projected.entry, projected.messages))
    return items


def replaced_items(session: Session, compaction_id: Any) -> list[Item]:
    """The items of the entries a compaction replaced (see :class:`CompactionSummary`)."""
    compaction = session.entry(compaction_id)
    if compaction is None or compaction.type != "compaction":
        return []
    items: list[Item] = []
    for entry in _replaced_entries(session, compaction):
        items.extend(entry_items(session, entry))
    return items


def entry_items(session: Session, entry: Entry) -> list[Item]:
    """The items one context entry gives, before any context edit (a compaction: the system
    prompt it carries, if any, then its summary)."""
    return _items(session, entry, context_messages(entry))


def _items(session: Session, entry: Entry, messages: list[dict[str, Any]]) -> list[Item]:
    if not messages:
        return []
    entry_id = entry.id
    if entry.type == "compaction":
        return [
            _compaction_item(session, entry, m)
            if m.get("role") == "compactionSummary"
            else item_from_message(m, entry_id)
            for m in messages
        ]
    if entry.type == "branch_summary":
        head = messages[0]
        return [BranchSummary(entry_id, _text(head.get("summary")), head.get("fromId"), _usage(entry.get("usage")))]
    return [item_from_message(m, entry_id) for m in messages]


def _compaction_item(session: Session, entry: Entry, message: dict[str, Any]) -> CompactionSummary:
    replaced = tuple(e.id for e in _replaced_entries(session, entry))
    return CompactionSummary(
        entry.id,
        _text(message.get("summary")),
        _int_or_none(message.get("tokensBefore")),
        replaced,
        _usage(entry.get("usage")),
    )


_MESSAGE_TYPES = frozenset({"message", "custom_message", "compaction"})


def _replaced_entries(session: Session, compaction: Entry) -> list[Entry]:
    """The entries whose messages were in the context just before ``compaction`` and are not
    after it: the context at its parent, less what the compaction keeps."""
    parent = compaction.parent_id
    if not parent or session.entry(parent) is None:
        return []
    kept = set(map(id, session.context_entries(compaction.id)[1:]))
    before = session.context_entries(parent)
    # (the two contexts can hold most of a long branch: the entries kept are left out in C)
    gone = itertools.compress(before, map(operator.not_, map(kept.__contains__, map(id, before))))
    return [
        e
        for e in gone
        if (type(e.type) is str and e.type in _MESSAGE_TYPES)  # (a type may be any JSON value)
        or (e.type == "branch_summary" and js_truthy(e.get("summary")))
    ]


def item_from_message(message: Any, entry_id: Any) -> Item:
    """One context message (as :meth:`Session.context` gives them) as an item."""
    if not isinstance(message, dict):
        return OtherMessage(entry_id, "(unreadable message)")
    get = message.get
    role = get("role")
    if role == "user":
        return UserMessage(entry_id, _parts(get("content")))
    if role == "assistant":
        return AssistantMessage(
            entry_id,
            _parts(get("content")),
            _text(get("provider")),
            _text(get("model")),
            _usage(get("usage")),
            _text(get("stopReason")),
            _text(get("errorMessage")),
        )
    if role == "toolResult":
        return ToolResult(
            entry_id,
            _text(get("toolName")),
            _parts(get("content")),
            get("isError") is True,
            _text(get("toolCallId")),
            _usage(get("usage")),
        )
    if role == "bashExecution":
        return BashExecution(
            entry_id,
            _text(get("command")),
            _text(get("output")),
            _int_or_none(get("exitCode")),
            get("cancelled") is True,
            get("truncated") is True,
            get("excludeFromContext") is True,
            _text(get("fullOutputPath")),
        )
    if role == "custom":
        return CustomMessage(entry_id, _text(get("customType")), _parts(get("content")), get("display") is not False)
    if role == "branchSummary":
        return BranchSummary(entry_id, _text(get("summary")), get("fromId"))
    if role == "compactionSummary":
        return CompactionSummary(entry_id, _text(get("summary")), _int_or_none(get("tokensBefore")))
    return OtherMessage(entry_id, _text(role) or "(no role)", _parts(get("content")))


def _parts(content: Any) -> tuple[Part, ...]:
    if isinstance(content, str):
        return (TextPart(content),)
    if not isinstance(content, list):
        return ()
    parts: list[Part] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(_text(block.get("text"))))
        elif kind == "thinking":
            thinking = block.get("thinking")
            parts.append(ThinkingPart(_text(thinking), block.get("redacted") is True))
        elif kind == "toolCall":
            arguments = block.get("arguments")
            parts.append(
                ToolCallPart(
                    _text(block.get("id")), _text(block.get("name")), None if arguments is MISSING else arguments
                )
            )
        elif kind == "image":
            parts.append(ImagePart(_text(block.get("mimeType")), _decoded_size(block.get("data"))))
    return tuple(parts)


def _decoded_size(data: Any) -> int:
    """The number of bytes base64 ``data`` decodes to, without decoding it."""
    if not isinstance(data, str):
        return 0
    length = len(data)
    if "\n" in data or " " in data or "\r" in data:
        length = len("".join(data.split()))
    padding = 2 if data.endswith("==") else 1 if data.endswith("=") else 0
    return max(0, length * 3 // 4 - padding)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None or value is MISSING:
        return ""
    return compact_json(value)


def _count(value: Any) -> int:
    count = _int_or_none(value)
    return 0 if count is None else count


def _int_or_none(value: Any) -> int | None:
    """A token count as a file spells it: an integer, or a double's whole part; None for any
    other value and for one JavaScript holds as no finite number (NaN, an integer literal
    beyond every double)."""
    kind = type(value)  # exact types: a JSON true is not 1 token
    if kind is not int and kind is not float:
        return None
    number = js_double(value)
    if not math.isfinite(number):
        return None
    return value if kind is int else int(number)


def _usage(value: Any) -> Usage | None:
    """pi's ``Usage``; old files lack ``totalTokens`` (then it is the sum of the others)."""
    if type(value) is not dict:
        return None
    get = value.get
    counts = (_count(get("input")), _count(get("output")), _count(get("cacheRead")), _count(get("cacheWrite")))
    total = _int_or_none(get("totalTokens"))
    cost = get("cost")
    dollars: Any = cost.get("total") if type(cost) is dict else None  # any JSON value
    return Usage(
        *counts,
        sum(counts) if total is None else total,
        js_double(dollars) if type(dollars) in (int, float) and dollars == dollars else 0.0,
    )


# ---------------------------------------------------------------------------------------------
# totals


def totals(items: Iterable[Item]) -> Totals:
    """The usage of ``items`` summed."""
    usage = Usage()
    assistants = 0
    for item in items:
        if isinstance(item, AssistantMessage):
            assistants += 1
        found = getattr(item, "usage", None)
        if found is not None:
            usage += found
    return Totals(usage, assistants)


def _entries_totals(stats: SessionStats) -> Totals:
    """pi's /session sums (:mod:`pitui.store.totals`, the one home of that rule) as shown."""
    usage = Usage(
        int(stats.input),  # a file's figures may be floats; tokens are shown whole
        int(stats.output),
        int(stats.cache_read),
        int(stats.cache_write),
        int(stats.total_tokens),
        float(stats.cost),
    )
    return Totals(usage, stats.assistant_messages)


def path_totals(session: Session, entry_id: Any = MISSING) -> Totals:
    """What the path root..``entry_id`` cost: every model call on it, compacted ones too.
    ``entry_id`` left out is the leaf; None is before the first entry (nothing)."""
    if entry_id is None:
        return Totals()
    return _entries_totals(session_stats(session.path_to(entry_id)))


def session_totals(session: Session) -> Totals:
    """What the whole session cost, every branch included: pi's ``/session`` totals, over every
    line of the file (an id written twice counts twice, as in pi)."""
    return _entries_totals(session.stats())
