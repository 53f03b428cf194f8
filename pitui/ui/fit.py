"""Fitting text into a number of terminal cells."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

__all__ = ["fit_middle"]


def fit_middle(text: str, width: int) -> str:
    """``text`` in ``width`` cells, its middle given way to ``…`` when it does not fit: a path
    keeps where it starts and the file it names (``~/.pi/agent/ses…f9afad219146.jsonl``)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:max(width, 0)]
    room = width - 1
    tail_room = room - room * 2 // 5
    head = set_cell_size(text, room - tail_room).rstrip(" ")
    while cell_len(head) > room - tail_room:  # a wide character cut in half
        head = head[:-1]
    start = len(text)
    while start > 0 and cell_len(text[start - 1 :]) <= room - cell_len(head):
        start -= 1
    return head + "…" + text[start:]
