"""pi's text extractors: message content and entries to text, one function per pi function.

pi reads a message's ``content`` (a string, or a list of blocks) in several places, each with
its own rule: the ``/tree`` navigator cuts text at 200 UTF-16 units and lets a block without
text add ``"undefined"``; Ctrl+X in the tree copies the whole text; the editor text of a
branch point joins text blocks with nothing in between. Each rule lives here once, named after
the pi function it mirrors (in snake case), so they are not mixed up: they differ on purpose.
"""

from __future__ import annotations

import math
from typing import Any

from pitui.store.js import (
    MISSING,
    js_double,
    js_head,
    js_join_value,
    js_len,
    js_number_string,
    js_or,
    js_string,
    js_string_to_number,
    js_trim,
    js_truthy,
)
from pitui.store.jsonl import dumps
from pitui.store.model import Entry
from pitui.store.paths import shorten_home_path

__all__ = [
    "extract_content",
    "extract_full_content",
    "extract_text_content",
    "extract_user_message_text",
    "format_read_line_range",
    "format_tool_call",
    "get_entry_copy_text",
    "get_searchable_text",
    "text_blocks",
    "tool_call_map_entries",
]

TREE_TEXT_CAP = 200  # pi cuts message text at 200 UTF-16 units, for display and search alike


def text_blocks(content: Any) -> list[str]:
    """The texts pi's ``.filter(c => c.type === "text").map(c => c.text)`` keeps, those that are
    strings: a string content is one text, anything else but a list none."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
    return []


def extract_text_content(content: Any) -> str:
    """pi's ``extractTextContent`` (core/session-manager.ts, for the session list's first message
    and search text): a string as is, else the ``text`` blocks' texts joined by spaces, a block
    whose text is missing or null adding an empty one (``Array.join``), any other value spelt by
    ``String()``. The listing scan runs the same rule inline, in its per-line loop, together with
    the cases where pi's listing throws (``pitui/store/catalog/scan.py``)."""
    if type(content) is str:
        return content
    if type(content) is list:
        return " ".join(_join_text(b.get("text")) for b in content if type(b) is dict and b.get("type") == "text")
    return ""


def _join_text(value: Any) -> str:
    if type(value) is str:
        return value
    return "" if value is None or value is MISSING else js_string(value)


def extract_user_message_text(content: Any) -> str:
    """pi's ``AgentSession._extractUserMessageText`` (core/agent-session.ts): a string, or the
    text blocks joined with nothing in between; the text a branch point puts in the editor.
    (``serializeConversation`` in core/compaction/utils.ts reads a user message the same way.)"""
    return "".join(text_blocks(content))


def extract_content(content: Any) -> str:
    """pi's ``TreeSelectorComponent.extractContent`` (modes/interactive/components/tree-selector.ts):
    a string, or the ``text`` blocks run together (a block without text adds ``"undefined"``,
    as JavaScript's ``+=`` does), cut to 200 UTF-16 units."""
    if type(content) is str:
        return js_head(content, TREE_TEXT_CAP)
    if type(content) is not list:
        return ""
    result = ""
    for block in content:
        if type(block) is dict and block.get("type") == "text":
            result += js_string(block.get("text", MISSING))
            if len(result) >= TREE_TEXT_CAP or (len(result) * 2 >= TREE_TEXT_CAP and js_len(result) >= TREE_TEXT_CAP):
                return js_head(result, TREE_TEXT_CAP)
    return result


def extract_full_content(content: Any) -> str:
    """pi 1.6's ``TreeSelectorComponent.extractFullContent``: a string, or the ``text`` blocks run
    together, uncut (a block without text adds ``"undefined"``, as JavaScript's ``+=`` does)."""
    if type(content) is str:
        return content
    if type(content) is not list:
        return ""
    return "".join(
        js_string(block.get("text", MISSING))
        for block in content
        if type(block) is dict and block.get("type") == "text"
    )


def get_entry_copy_text(data: dict[str, Any]) -> str | None:
    """pi 1.6's ``TreeSelectorComponent.getEntryCopyText``: what Ctrl+X in the tree copies of an
    entry (its whole value ``data``), or None (pi: "Selected entry has no text to copy").

    A message's text blocks in full (a user, assistant, tool result, custom or system message
    alike), a ``!`` run's command, a textless assistant's ``errorMessage``; a custom message's
    text; a compaction's or branch summary's summary. Text that is blank once trimmed is none.
    Where pi would throw (a command or summary that is not a string), there is none either."""
    kind = data.get("type")
    text: Any = None
    if kind == "message":
        message = data.get("message")
        if type(message) is dict:
            if message.get("role") == "bashExecution":
                text = message.get("command")
            elif "content" in message:
                text = extract_full_content(message["content"])
                if not text and message.get("role") == "assistant":
                    text = message.get("errorMessage")
    elif kind == "custom_message":
        text = extract_full_content(data.get("content"))
    elif kind in ("compaction", "branch_summary"):
        text = data.get("summary")
    return text if type(text) is str and js_trim(text) else None


def format_read_line_range(offset: Any, limit: Any) -> str:
    """pi 1.6's ``formatReadLineRange`` (core/tools/render-utils.ts): the ``:start-end`` after a
    ``read`` call's path. Both absent or null: nothing; a null offset starts at 1; numbers and
    numeric strings count, anything else (a non-finite number, a boolean, other text) drops the
    suffix; no limit gives ``:start``; an end of 0 is left out."""
    if _nullish(offset) and _nullish(limit):
        return ""
    start = 1.0 if _nullish(offset) else _line_number(offset)
    if start is None:
        return ""
    if _nullish(limit):
        return f":{js_number_string(start)}"
    count = _line_number(limit)
    if count is None:
        return ""
    end = start + count - 1
    return f":{js_number_string(start)}" + (f"-{js_number_string(end)}" if end else "")


def _nullish(value: Any) -> bool:
    return value is None or value is MISSING


def _line_number(value: Any) -> float | None:
    """render-utils' ``parseLineNumber``: a finite number, or a string that is one."""
    if type(value) is str and js_trim(value) != "":
        value = js_string_to_number(value)
    if type(value) in (int, float) and math.isfinite(number := js_double(value)):
        return number
    return None


def format_tool_call(name: Any, args: Any, home: str) -> str:
    """pi 1.6's ``TreeSelectorComponent.formatToolCall`` (modes/interactive/components/tree-selector.ts):
    the one-line description of a tool call. Paths are shortened with ``shortenHomePath``
    (:func:`pitui.store.paths.shorten_home_path`: ``/home/me2/x`` stays as it is), a ``read``
    gets :func:`format_read_line_range`."""
    if type(args) is not dict:
        args = {}

    def shorten(path: str) -> str:
        return shorten_home_path(path, home)

    get = args.get
    if name == "read":
        path = shorten(js_string(js_or(get("path", MISSING), get("file_path", MISSING), "")))
        return f"[read: {path}{format_read_line_range(get('offset', MISSING), get('limit', MISSING))}]"
    if name in ("write", "edit"):
        path = shorten(js_string(js_or(get("path", MISSING), get("file_path", MISSING), "")))
        return f"[{name}: {path}]"
    if name == "bash":
        raw = js_string(js_or(get("command", MISSING), ""))
        command = js_head(js_trim(raw.replace("\n", " ").replace("\t", " ")), 50)
        return f"[bash: {command}{'...' if js_len(raw) > 50 else ''}]"
    if name == "grep":
        pattern = js_string(js_or(get("pattern", MISSING), ""))
        return f"[grep: /{pattern}/ in {shorten(js_string(js_or(get('path', MISSING), '.')))}]"
    if name == "find":
        pattern = js_string(js_or(get("pattern", MISSING), ""))
        return f"[find: {pattern} in {shorten(js_string(js_or(get('path', MISSING), '.')))}]"
    if name == "ls":
        return f"[ls: {shorten(js_string(js_or(get('path', MISSING), '.')))}]"
    text = dumps(args).decode()
    return f"[{js_string(name)}: {js_head(text, 40)}{'...' if js_len(text) > 40 else ''}]"


def tool_call_map_entries(message: Any) -> dict[Any, tuple[Any, Any]]:
    """What pi's ``TreeSelectorComponent.flattenTree`` (modes/interactive/components/tree-selector.ts)
    puts in its ``toolCallMap`` for one assistant message: ``{id: (name, arguments)}``, later
    calls winning."""
    calls: dict[Any, tuple[Any, Any]] = {}
    content = message.get("content") if type(message) is dict else None
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "toolCall":
                key = block.get("id", MISSING)
                if type(key) not in (list, dict):  # JavaScript compares those by identity
                    calls[key] = (block.get("name", MISSING), block.get("arguments", MISSING))
    return calls


def get_searchable_text(entry: Entry) -> str:
    """pi's ``TreeSelectorComponent.getSearchableText`` (modes/interactive/components/tree-selector.ts)
    without the label (the tree puts it in front), lower-cased as pi's filter compares it."""
    kind = entry.type
    data = entry.data
    parts: list[Any]
    if kind == "message":
        message = data.get("message")
        if type(message) is not dict:
            return ""
        role = message.get("role", MISSING)
        parts = [role]
        content = message.get("content", MISSING)
        if js_truthy(content):
            parts.append(extract_content(content))
        if role == "bashExecution" and js_truthy(message.get("command")):
            parts.append(message.get("command"))
    elif kind == "custom_message":
        content = data.get("content", MISSING)
        parts = [data.get("customType", MISSING), content if type(content) is str else extract_content(content)]
    elif kind == "compaction":
        parts = ["compaction"]
    elif kind == "branch_summary":
        parts = ["branch summary", data.get("summary", MISSING)]
    elif kind == "session_info":
        parts = ["title"]
        if js_truthy(data.get("name")):
            parts.append(data.get("name"))
    elif kind == "model_change":
        parts = ["model", data.get("modelId", MISSING)]
    elif kind == "thinking_level_change":
        parts = ["thinking", data.get("thinkingLevel", MISSING)]
    elif kind == "custom":
        parts = ["custom", data.get("customType", MISSING)]
    elif kind == "context_edit":
        omit = data.get("replacement", MISSING) is None
        parts = ["context edit", "omit" if omit else "replace", data.get("targetId", MISSING)]
    elif kind == "label":
        label = data.get("label", MISSING)
        parts = ["label", "" if label is None or label is MISSING else label]
    else:
        return ""
    return js_join_value(parts, " ").lower()
