"""Where the tokens went: the usage of listed sessions added up per day, project or model, over a
period, with the sessions that make up each bucket.

The figures are :meth:`pitui.store.catalog.Catalog.usage`'s (pi's ``/session`` totals, split by
local day and by ``provider/model``); a project is a session's header ``cwd``.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from msgspec import Struct, field

from pitui.store.catalog.model import SessionInfo
from pitui.store.catalog.usage import UNKNOWN_DAY, SessionUsage
from pitui.store.paths import shorten_home_path

__all__ = [
    "GROUPINGS",
    "NO_PROJECT",
    "PERIODS",
    "Grouping",
    "UsageReport",
    "UsageRow",
    "period_label",
    "short_key",
    "usage_report",
]

Grouping = Literal["day", "project", "model"]
GROUPINGS: tuple[Grouping, ...] = ("day", "project", "model")
# The periods offered: the last N days, today included (None: all of it).
PERIODS: tuple[int | None, ...] = (7, 30, 90, None)
NO_PROJECT = "(no folder)"


def short_key(key: str, by: str) -> str:
    """A bucket's name as shown: a project's folder with ``~`` for the home folder."""
    if by == "project":
        home = os.path.expanduser("~")
        return key if home == "/" else shorten_home_path(key, home)
    return key


def period_label(days: int | None) -> str:
    return "all time" if days is None else f"last {days} days"


class UsageRow(Struct):
    """One bucket: its figures and the sessions (paths, in listing order) that have usage in it."""

    key: str
    input: int | float = 0
    output: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0
    cost: int | float = 0
    usages: int = 0  # entries with usage counted
    sessions: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int | float:
        """pi's ``tokens.total``: input, output, cache read and cache write."""
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, figures: tuple[Any, ...]) -> None:
        self.input += figures[0]
        self.output += figures[1]
        self.cache_read += figures[2]
        self.cache_write += figures[3]
        self.cost += figures[4]
        self.usages += figures[5]

    def to_json(self, paths: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "key": self.key,
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.tokens,
            "cost": self.cost,
            "usages": self.usages,
            "sessions": len(self.sessions),
        }
        if paths:
            out["sessionPaths"] = list(self.sessions)
        return out


class UsageReport(Struct):
    """The buckets (days oldest first; projects and models by cost, then tokens, largest first)
    and their total."""

    by: Grouping
    days: int | None
    rows: list[UsageRow]
    total: UsageRow
    first_day: str | None  # the period's first day (None: all time)

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "period": "all" if self.days is None else self.days,
            "since": self.first_day,
            "rows": [row.to_json() for row in self.rows],
            "total": self.total.to_json(paths=False),
        }

    def row(self, key: str) -> UsageRow | None:
        return next((row for row in self.rows if row.key == key), None)


def usage_report(
    infos: Iterable[SessionInfo],
    usage: Mapping[str, SessionUsage],
    by: Grouping = "day",
    days: int | None = None,
    today: datetime.date | None = None,
) -> UsageReport:
    """The usage of ``infos`` (their figures from ``usage``, by path) per ``by``, over the last
    ``days`` days up to ``today`` (the local date by default; None: every day, those of an
    unknown time included)."""
    first_day = None
    if days is not None:
        today = today or datetime.date.today()
        first_day = (today - datetime.timedelta(days=days - 1)).isoformat()
    buckets: dict[str, UsageRow] = {}
    total = UsageRow("total")
    for info in infos:
        found = usage.get(info.path)
        if found is None:
            continue
        counted = False
        for (day, source), figures in found.buckets.items():
            if first_day is not None and (day == UNKNOWN_DAY or day < first_day):
                continue
            key = day if by == "day" else source if by == "model" else (info.cwd or NO_PROJECT)
            row = buckets.get(key)
            if row is None:
                row = buckets[key] = UsageRow(key)
            row.add(figures)
            if not row.sessions or row.sessions[-1] != info.path:
                row.sessions.append(info.path)
            total.add(figures)
            counted = True
        if counted:
            total.sessions.append(info.path)
    rows = list(buckets.values())
    if by == "day":
        rows.sort(key=lambda row: (row.key == UNKNOWN_DAY, row.key))
    else:
        rows.sort(key=lambda row: (-row.cost, -row.tokens, row.key))
    return UsageReport(by, days, rows, total, first_day)
