"""``pitui usage``: where the tokens went, per day, project or model, as a table or JSON."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pitui.safe_text import safe
from pitui.store.usage_report import short_key

__all__ = ["cmd_usage", "format_table"]

_HEADINGS = ("input", "output", "cache read", "cache write", "cost", "sessions")


def _figures(row: Any) -> list[str]:
    return [
        f"{row.input:,}",
        f"{row.output:,}",
        f"{row.cache_read:,}",
        f"{row.cache_write:,}",
        f"${row.cost:,.2f}",
        f"{len(row.sessions):,}",
    ]


def format_table(report: Any) -> list[str]:
    """The report's lines: a heading, a line per bucket, a total line."""
    names = [safe(short_key(row.key, report.by)) for row in report.rows]
    body = [_figures(row) for row in report.rows]
    total = _figures(report.total)
    first = max([len(report.by), len("total"), *map(len, names)])
    widths = [max(len(heading), *(len(cells[i]) for cells in [*body, total])) for i, heading in enumerate(_HEADINGS)]

    def line(name: str, cells: tuple[str, ...] | list[str]) -> str:
        return "  ".join([name.ljust(first), *(cell.rjust(width) for cell, width in zip(cells, widths, strict=True))])

    rule = "-" * len(line("", _HEADINGS))
    out = [line(report.by, _HEADINGS), rule]
    out += [line(name, cells) for name, cells in zip(names, body, strict=True)] or ["(no usage in this period)"]
    out += [rule, line("total", total)]
    return out


def cmd_usage(args: argparse.Namespace) -> int:
    from pitui.cli.commands import _json_out, _listing
    from pitui.store.catalog import Catalog
    from pitui.store.usage_report import period_label, usage_report

    if args.days is not None and args.days < 1:
        print("pitui: --days takes a number of days, 1 or more", file=sys.stderr)
        return 2
    with Catalog() as catalog:
        sessions = _listing(catalog, args)
        for problem in catalog.problems:
            print(f"pitui: skipped {safe(problem.path)}: {safe(problem.reason)}", file=sys.stderr)
        usage = catalog.usage(sessions)
    report = usage_report(sessions, usage, args.by, args.days)
    if args.json:
        _json_out(report.to_json())
        return 0
    where = "every project" if args.all else "this folder"
    print(f"Usage of {where}'s {len(sessions):,} sessions, {period_label(args.days)}, by {args.by}")
    for text in format_table(report):
        print(text)
    return 0
