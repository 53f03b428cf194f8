"""What the conversation pane looks like for each kind of message: SVG snapshots at 72x24."""

from __future__ import annotations

import pytest
from helpers.conversation_app import EVERY_KIND, ViewApp, assistant

from pitui.store.conversation import Item

SNAPSHOTS: dict[str, tuple[list[Item], list[str]]] = {
    "user": ([EVERY_KIND[0]], []),
    "assistant": ([EVERY_KIND[1]], []),
    "assistant-thinking": ([EVERY_KIND[1]], ["t"]),
    "assistant-error": (
        [assistant("a9", "Partial answer", stop_reason="error", error_message="overloaded_error", usage=None)],
        [],
    ),
    "tool-result-folded": ([EVERY_KIND[2]], []),
    "tool-result-open": ([EVERY_KIND[2]], ["enter"]),
    "tool-error": ([EVERY_KIND[3]], []),
    "bash": ([EVERY_KIND[4]], []),
    "custom": ([EVERY_KIND[5]], []),
    "branch-summary": ([EVERY_KIND[6]], []),
    "compaction": ([EVERY_KIND[7]], []),
    "compaction-open": ([EVERY_KIND[7]], ["enter"]),
    "unknown-role": ([EVERY_KIND[8]], []),
    "conversation": (EVERY_KIND[:5], ["up", "up"]),
}


@pytest.mark.parametrize("name", list(SNAPSHOTS))
def test_snapshot(snap_compare, name: str) -> None:
    items, keys = SNAPSHOTS[name]
    assert snap_compare(
        ViewApp(items, anchor=items[0].entry_id if len(items) == 1 else None), press=keys, terminal_size=(72, 24)
    )
