"""How the UI writes numbers, times and paths: sizes, tokens, cost, ages, ``~`` paths, usage.

Plain functions of plain values (no widget, no file), shared by the picker, the session view,
the conversation pane and the command line.

Two rules shorten the home folder to ``~``, on purpose: :func:`shorten_home_path` is pi 1.6's
``shortenHomePath`` (only an absolute path within home, compared as resolved paths, the rest
written relative: ``/home/me/./x`` is ``~/x``), used where pitui shows what pi shows (the
picker's rows and folder line, and the tree's tool calls, so it lives in
:mod:`pitui.store.paths`); :func:`shorten_home_folder` replaces only a whole leading folder
and leaves the rest as it is, used where pitui shows paths of its own (the preview, the session
view's title).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len, set_cell_size

from pitui.safe_text import safe_line
from pitui.store.jsonl import compact_json
from pitui.store.paths import shorten_home_path

if TYPE_CHECKING:
    from pitui.store.catalog import SessionInfo
    from pitui.store.conversation import Usage

__all__ = [
    "arguments_text",
    "error_about",
    "fit_middle",
    "format_age",
    "format_cost",
    "format_size",
    "format_time",
    "format_tokens",
    "format_usage",
    "plural",
    "problems_text",
    "row_title",
    "sentence_case",
    "shorten_home_folder",
    "shorten_home_path",
]


# -- numbers ---------------------------------------------------------------------------------------


def format_size(size: int) -> str:
    """A file size in SI units: ``812 B``, ``44.9 kB``, ``1.2 MB``."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 999.95 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def format_tokens(count: float) -> str:
    """A token count as pi's footer shows it (``950``, ``4.5k``, ``12k``, ``1.2M``, ``34M``: its
    ``formatTokens``, :func:`pitui.store.context_size.format_tokens`), and on to ``1.5B``,
    ``588B``."""
    if count < 1_000_000_000:
        # Imported here: the picker's first frame needs no context counting.
        from pitui.store.context_size import format_tokens as pi_format_tokens

        return pi_format_tokens(count)
    # Beyond pi's footer: a long session's cache reads add up to billions.
    if count < 10_000_000_000:
        return f"{count / 1_000_000_000:.1f}B"
    return f"{round(count / 1_000_000_000):,}B"


def format_cost(cost: float) -> str:
    """Dollars with cents: ``$0.42``; ``<$0.01`` for a cost too small to show."""
    if 0 < cost < 0.005:
        return "<$0.01"
    return f"${cost:,.2f}"


def plural(count: int, one: str, many: str) -> str:
    """``1 branch``, ``2 branches``, ``1,204 entries``."""
    return f"{count:,} {one if count == 1 else many}"


def format_usage(usage: Usage) -> str:
    """Tokens and cost as pi shows them: ↑input ↓output Rcache-read Wcache-write, total, $."""
    return (
        f"↑{format_tokens(usage.input)} ↓{format_tokens(usage.output)} R{format_tokens(usage.cache_read)} "
        f"W{format_tokens(usage.cache_write)} · {format_tokens(usage.total_tokens)} tokens · ${usage.cost:.3f}"
    )


# -- times -----------------------------------------------------------------------------------------


def format_age(ms: float | None, now_ms: float) -> str:
    """How long ago ``ms`` was, as pi's session picker says it (``formatSessionDate``, floored):
    now, 5m, 3h, 2d, 1w, 4mo, 2y. An unknown time is ``?`` (pi prints ``NaNy``)."""
    if ms is None or math.isnan(ms):
        return "?"
    minutes = math.floor((now_ms - ms) / 60_000)
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h"
    days = hours // 24
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def format_time(ms: float | None, now_ms: float) -> str:
    """``3d ago · 2026-03-16 08:41`` (local time)."""
    if ms is None or not math.isfinite(ms):
        return "unknown"
    age = format_age(ms, now_ms)
    try:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))
    except (OverflowError, OSError, ValueError):
        return age
    return f"{stamp} ({age})" if age == "now" else f"{stamp} ({age} ago)"


# -- paths and titles ------------------------------------------------------------------------------


def shorten_home_folder(path: str, home: str) -> str:
    """``path`` with a whole leading home folder written ``~`` (``/home/me2`` stays as it is):
    for the paths pitui shows beyond pi's rows."""
    home = home.rstrip(os.sep)
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def row_title(info: SessionInfo) -> str:
    """What a picker row shows: the name, else the first message; one line, trimmed, made safe."""
    text = info.name if info.name is not None else info.first_message
    return safe_line(text).strip()


def fit_middle(text: str, width: int) -> str:
    """``text`` in ``width`` cells, its middle given way to ``…`` when it does not fit: a path
    keeps where it starts and the file it names (``~/.pi/agent/ses…f9afad219146.jsonl``)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[: max(width, 0)]
    room = width - 1
    tail_room = room - room * 2 // 5
    head = set_cell_size(text, room - tail_room).rstrip(" ")
    while cell_len(head) > room - tail_room:  # a wide character cut in half
        head = head[:-1]
    start = len(text)
    while start > 0 and cell_len(text[start - 1 :]) <= room - cell_len(head):
        start -= 1
    return head + "…" + text[start:]


# -- tool calls ------------------------------------------------------------------------------------


def arguments_text(arguments: Any) -> str:
    """Tool call arguments, one ``key: value`` line per key (strings as they are, the rest as
    compact JSON), so an edit's text reads as text rather than as one escaped line."""
    if isinstance(arguments, dict) and arguments:
        lines = []
        for key, value in arguments.items():
            shown = value if isinstance(value, str) else compact_json(value)
            lines.append(f"{key}:\n{shown}" if "\n" in shown else f"{key}: {shown}")
        return "\n".join(lines)
    return compact_json(arguments)


# -- messages --------------------------------------------------------------------------------------


def sentence_case(text: str) -> str:
    """``text`` with its first letter a capital."""
    return text[:1].upper() + text[1:]


def error_about(error: Exception, path: str) -> str:
    """An error's message without the file's path in front, where the row says which file it is."""
    message = str(error)
    return message[len(path) + 2 :] if message.startswith(f"{path}: ") else message


PROBLEMS_SHOWN = 12  # files named in the "files skipped" note; the rest are counted


def problems_text(problems: Sequence[Any]) -> str:
    """The files a listing skipped, one ``name: reason`` line each, by path (safe to show)."""
    problems = sorted(problems, key=lambda p: p.path)
    lines = [f"{os.path.basename(p.path) or p.path}: {p.reason}" for p in problems[:PROBLEMS_SHOWN]]
    if len(problems) > PROBLEMS_SHOWN:
        lines.append(f"and {len(problems) - PROBLEMS_SHOWN} more")
    return "\n".join(map(safe_line, lines))
