"""What one entry contributes to the model's context: pi's ``sessionEntryToContextMessages``,
the per-entry half of ``buildSessionContext`` (reference §4.3)."""

from __future__ import annotations

from typing import Any

from pitui.store.js import MISSING, js_truthy
from pitui.store.model import Entry, date_ms


def has_retained_tail(compaction: Entry) -> bool:
    return js_truthy(compaction.get("retainedTail"))


def context_messages(entry: Entry) -> list[dict[str, Any]]:
    """``sessionEntryToContextMessages``: what one selected entry contributes to the context."""
    kind = entry.type
    if kind == "message":
        return [entry.message]
    if kind == "custom_message":
        # pi copies the fields over: one the entry lacks is undefined, not null, in the message.
        data = entry.data
        message = {
            "role": "custom",
            "customType": data.get("customType", MISSING),
            "content": data.get("content", MISSING),
            "display": data.get("display", MISSING),
            "details": data.get("details", MISSING),
            "timestamp": date_ms(entry.timestamp),
        }
        return [{key: value for key, value in message.items() if value is not MISSING}]
    if kind == "branch_summary":
        summary = entry.get("summary")
        if not js_truthy(summary):
            return []
        return [
            {
                "role": "branchSummary",
                "summary": summary,
                "fromId": entry.get("fromId"),
                "timestamp": date_ms(entry.timestamp),
            }
        ]
    if kind == "compaction":
        tail = entry.get("retainedTail")
        summary = {
            "role": "compactionSummary",
            "summary": entry.get("summary"),
            "tokensBefore": entry.get("tokensBefore"),
            "timestamp": date_ms(entry.timestamp),
        }
        return [summary, *(tail if isinstance(tail, list) and js_truthy(tail) else [])]
    return []
