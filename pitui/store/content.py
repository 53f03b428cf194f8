"""pi's text extractors: message content and entries to text, one function per pi function.

pi reads a message's ``content`` (a string, or a list of blocks) in several places, each with
its own rule: the ``/tree`` navigator cuts text at 200 UTF-16 units and lets a block without
text add ``"undefined"``; the editor text of a branch point joins text blocks with nothing in
between. Each rule lives here once, named after the pi function it mirrors (in snake case),
so they are not mixed up: they differ on purpose.
"""

from __future__ import annotations

from typing import Any

from pitui.store.js import (
    MISSING,
    js_head,
    js_join_value,
    js_len,
    js_minus,
    js_or,
    js_plus,
    js_string,
    js_trim,
    js_truthy,
)
from pitui.store.jsonl import dumps
from pitui.store.model import Entry

__all__ = [
    "extract_content",
    "extract_text_content",
    "extract_user_message_text",
    "format_tool_call",
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


def format_tool_call(name: Any, args: Any, home: str) -> str:
    """pi's ``TreeSelectorComponent.formatToolCall`` (modes/interactive/components/tree-selector.ts):
    the one-line description of a tool call."""
    if type(args) is not dict:
        args = {}

    def shorten(path: str) -> str:
        # formatToolCall's own shortenPath: a plain prefix test on $HOME, no path boundary.
        return "~" + path[len(home) :] if home and path.startswith(home) else path

    get = args.get
    if name == "read":
        display = shorten(js_string(js_or(get("path", MISSING), get("file_path", MISSING), "")))
        offset, limit = get("offset", MISSING), get("limit", MISSING)
        if offset is not MISSING or limit is not MISSING:
            start = 1 if offset is None or offset is MISSING else offset
            end: Any = js_minus(js_plus(start, limit), 1) if limit is not MISSING else ""
            display += f":{js_string(start)}" + (f"-{js_string(end)}" if js_truthy(end) else "")
        return f"[read: {display}]"
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
    elif kind == "label":
        label = data.get("label", MISSING)
        parts = ["label", "" if label is None or label is MISSING else label]
    else:
        return ""
    return js_join_value(parts, " ").lower()
