"""Sessions and screen lines for the tests of the session view's reading from disk."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devkit.builder import header, msg, write
from pitui.ui.widgets.session_tree import SessionTree


def turns(path: Path, count: int) -> Path:
    """``count`` turns: a question, an answer that runs a command, its result, a last answer."""
    objects: list[Any] = [header()]
    parent = None
    n = 0
    for turn in range(count):
        call = {"type": "toolCall", "id": f"call{turn}", "name": "bash", "arguments": {"command": f"ls dir{turn}"}}
        for eid, role, text, extra in (
            (f"u{turn:06d}", "user", f"question {turn}", {}),
            (f"c{turn:06d}", "assistant", f"looking {turn}", {"stopReason": "toolUse"}),
            (f"t{turn:06d}", "toolResult", f"files {turn}", {"toolCallId": f"call{turn}"}),
            (f"a{turn:06d}", "assistant", f"answer {turn}", {}),
        ):
            entry = msg(eid, parent, role, text, n=n, **extra)
            if role == "assistant" and extra:
                entry["message"]["content"].append(call)
            objects.append(entry)
            parent, n = eid, n + 1
    return write(path, *objects)


def tree_lines(tree: SessionTree) -> list[str]:
    return [line.text.rstrip() for line in map(tree.render_line, range(tree.scrollable_content_region.height))]
