"""The model's context size, as pi 1.6.0's footer shows it.

pi's footer (``modes/interactive/components/footer.ts``) shows ``AgentSession.getContextUsage``
(``core/agent-session.ts``): the tokens of the context the next request would send, over the
model's context window. The count (``core/compaction/compaction.ts``):

* :func:`calculate_context_tokens`: an assistant reply's ``usage.totalTokens``, else the sum of
  its input, output, cache-read and cache-write tokens;
* :func:`estimate_context_tokens`: the usage of the last assistant reply in the projected
  context that has one (not aborted, not an error, above zero), plus :func:`estimate_tokens`
  (characters / 4, rounded up) of every message after it; with no such reply, the estimate of
  every message;
* :func:`estimate_projected`: that usage is trusted only when the reply comes after the
  path's latest ``context_edit`` or ``compaction``; otherwise the whole context is estimated
  (the current system prompt once, replayed, then every other message);
* :func:`context_tokens`: after a compaction, pi shows ``?`` until a reply since it has usage
  (None here).

Lengths are JavaScript's (UTF-16 units) and a tool call's arguments are measured as
``JSON.stringify`` writes them. Where pi would throw or count ``NaN`` (content of the wrong
type), the value counts as nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from msgspec import Struct

from pitui.store.context import ProjectedEntry, edit_map, project_entry, projected_messages
from pitui.store.js import MISSING, js_len, js_number, js_number_string, js_truthy
from pitui.store.jsonl import dumps
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.system_prompt import replay_system

__all__ = [
    "ContextEstimate",
    "calculate_context_tokens",
    "context_tokens",
    "estimate_context_tokens",
    "estimate_projected",
    "estimate_tokens",
    "format_tokens",
]

# estimateTextAndImageContentChars: an image counts as this many characters.
ESTIMATED_IMAGE_CHARS = 4800


class ContextEstimate(Struct, frozen=True):
    """pi's ``ContextUsageEstimate``: ``usage_tokens`` from the last usable reply (at
    ``last_usage_index`` among the messages, None when there is none or it is not trusted),
    plus ``trailing_tokens`` estimated for the messages after it."""

    tokens: float
    usage_tokens: float
    trailing_tokens: int
    last_usage_index: int | None


def _get(value: Any, key: str) -> Any:
    return value.get(key, MISSING) if type(value) is dict else MISSING


def calculate_context_tokens(usage: Any) -> float:
    """``calculateContextTokens``: ``totalTokens || input + output + cacheRead + cacheWrite``
    (NaN when a part is missing, as in JavaScript)."""
    total = _get(usage, "totalTokens")
    if js_truthy(total):
        return js_number(total)
    parts = [_get(usage, key) for key in ("input", "output", "cacheRead", "cacheWrite")]
    if any(part is MISSING for part in parts):
        return math.nan
    return float(sum(js_number(part) for part in parts))


def _usage(message: Any) -> Any:
    """``getAssistantUsage``: the usage of an assistant reply that can be trusted, else None."""
    if type(message) is not dict or message.get("role") != "assistant" or "usage" not in message:
        return None
    if message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message["usage"]
    if not js_truthy(usage) or not calculate_context_tokens(usage) > 0:
        return None
    return usage


def _content_chars(content: Any) -> int:
    """``estimateTextAndImageContentChars``."""
    if type(content) is str:
        return js_len(content)
    chars = 0
    if type(content) is list:
        for block in content:
            kind = _get(block, "type")
            text = _get(block, "text")
            if kind == "text" and type(text) is str:
                chars += js_len(text)
            elif kind == "image":
                chars += ESTIMATED_IMAGE_CHARS
    return chars


def _text_len(value: Any) -> int:
    return js_len(value) if type(value) is str else 0


def _json_len(value: Any) -> int:
    if value is MISSING:
        return 0  # JSON.stringify(undefined) has no length: pi throws
    try:
        return js_len(dumps(value).decode())
    except (TypeError, ValueError):
        return 0


def estimate_tokens(message: Any) -> int:
    """``estimateTokens``: a message's characters / 4, rounded up."""
    role = _get(message, "role")
    chars = 0
    if role == "system":
        chars = _content_chars(message.get("content"))
        sections = message.get("sections")
        if type(sections) is dict:
            chars += sum(_text_len(v) for v in sections.values() if js_truthy(v))
        if js_truthy(message.get("toolsAdded")):
            chars += _json_len(message["toolsAdded"])
    elif role in ("user", "custom", "toolResult"):
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        content = message.get("content")
        for block in content if type(content) is list else ():
            kind = _get(block, "type")
            if kind == "text":
                chars += _text_len(block.get("text"))
            elif kind == "thinking":
                chars += _text_len(block.get("thinking"))
            elif kind == "toolCall":
                chars += _text_len(block.get("name")) + _json_len(block.get("arguments", MISSING))
    elif role == "bashExecution":
        chars = _text_len(message.get("command")) + _text_len(message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _text_len(message.get("summary"))
    else:
        return 0
    return -(-chars // 4)


def estimate_context_tokens(messages: Sequence[Any]) -> ContextEstimate:
    """``estimateContextTokens``: the last usable reply's usage plus the estimate of what
    follows it, or the estimate of every message."""
    for index in range(len(messages) - 1, -1, -1):
        usage = _usage(messages[index])
        if usage is not None:
            usage_tokens = calculate_context_tokens(usage)
            trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
            return ContextEstimate(usage_tokens + trailing, usage_tokens, trailing, index)
    estimated = sum(estimate_tokens(m) for m in messages)
    return ContextEstimate(estimated, 0, estimated, None)


def _current_system(messages: Sequence[Any]) -> dict[str, Any] | None:
    """pi-ai's ``getCurrentSystemMessage`` as the message object ``estimateTokens`` measures."""
    prompt = replay_system(messages)
    if prompt is None:
        return None
    message: dict[str, Any] = {"role": "system", "content": prompt.content}
    if prompt.sections:
        message["sections"] = prompt.sections
    if prompt.tools:
        message["toolsAdded"] = list(prompt.tools.values())
    return message


def estimate_projected(projection: Sequence[ProjectedEntry], branch: Sequence[Entry]) -> ContextEstimate:
    """``estimateProjectedContextTokens``: :func:`estimate_context_tokens` of the projected
    messages when its reply comes after the branch's latest ``context_edit`` or
    ``compaction``; else every projected message estimated, the system prompt once."""
    messages = projected_messages(projection)
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        source: Any = MISSING
        start = 0
        for projected in projection:
            end = start + len(projected.messages)
            if estimate.last_usage_index < end:
                source = projected.entry.id
                break
            start = end
        usage_at = next((i for i, e in enumerate(branch) if e.id == source), -1) if source is not MISSING else -1
        invalidating = next(
            (i for i in range(len(branch) - 1, -1, -1) if branch[i].type in ("context_edit", "compaction")), -1
        )
        if usage_at > invalidating:
            return estimate
    system = _current_system(messages)
    tokens = estimate_tokens(system) if system is not None else 0
    tokens += sum(estimate_tokens(m) for m in messages if _get(m, "role") != "system")
    return ContextEstimate(tokens, 0, tokens, None)


def context_tokens(session: Session, entry_id: Any) -> float | None:
    """The tokens pi's footer would show with ``entry_id`` as the leaf (``getContextUsage``);
    None for pi's ``?``: after the path's latest compaction, no reply with usage yet.

    The same figures as :func:`estimate_projected` on the whole projection, read from the end:
    only the messages after the last reply are decoded, unless pi estimates everything."""
    branch = session.path_to(entry_id)
    if not branch:
        return 0
    selected = session.context_entries(entry_id)
    edits = edit_map(selected)
    projected: dict[int, ProjectedEntry] = {}

    def at(index: int) -> ProjectedEntry:
        found = projected.get(index)
        if found is None:
            found = projected[index] = project_entry(selected[index], index, edits)
        return found

    # Where an entry is on the branch, found by looking back from the end as far as asked: the
    # loop below stops at the last reply with usage, a few entries from the end of 100,000.
    position: dict[int, int] = {}
    looked = len(branch)

    def position_of(entry: Entry) -> int:
        nonlocal looked
        found = position.get(id(entry))
        while found is None and looked > 0:
            looked -= 1
            position[id(branch[looked])] = looked
            if branch[looked] is entry:
                found = looked
        return -1 if found is None else found

    latest_compaction = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].type == "compaction"), None)
    invalidating = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].type in _INVALIDATING), -1)
    trailing = 0
    for index in range(len(selected) - 1, -1, -1):
        entry_at = position_of(selected[index])
        if latest_compaction is not None and entry_at <= latest_compaction:
            return None  # no reply with usage since the compaction
        messages = at(index).messages
        for message in reversed(messages):
            usage = _usage(message)
            if usage is not None:
                if entry_at > invalidating:
                    return calculate_context_tokens(usage) + trailing
                if latest_compaction is None or entry_at > latest_compaction:
                    return estimate_projected([at(i) for i in range(len(selected))], branch).tokens
            trailing += estimate_tokens(message)
    if latest_compaction is not None:
        return None
    return estimate_projected([at(i) for i in range(len(selected))], branch).tokens


_INVALIDATING = ("context_edit", "compaction")


def format_tokens(count: float) -> str:
    """The footer's ``formatTokens``: ``950``, ``1.2k``, ``45k``, ``1.5M``, ``12M``."""
    if count < 1000:
        return js_number_string(count)
    if count < 10000:
        return f"{_fixed1(count / 1000)}k"
    if count < 1000000:
        return f"{js_number_string(_round(count / 1000))}k"
    if count < 10000000:
        return f"{_fixed1(count / 1000000)}M"
    return f"{js_number_string(_round(count / 1000000))}M"


def _round(value: float) -> float:
    """``Math.round``: halves go up."""
    return float(math.floor(value + 0.5))


def _fixed1(value: float) -> str:
    """``value.toFixed(1)``: the exact binary value rounded, a tie going up."""
    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
