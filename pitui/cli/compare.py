"""``pitui compare SESSION A B [--json]``: two branches of a session from their common entry,
side by side where the terminal is wide enough, else A then B (the rule: pitui.store.compare)."""

from __future__ import annotations

import argparse
import sys
from itertools import zip_longest
from typing import TYPE_CHECKING

from pitui.cli.resolve import CliError, load_session, resolve_session
from pitui.safe_text import safe

if TYPE_CHECKING:
    from pitui.store.compare import Comparison, Item

__all__ = ["cmd_compare", "comparison_lines"]

SIDE_BY_SIDE_WIDTH = 100  # narrower than this, A is printed above B
ONLY_HERE = "+"  # an item the other side does not have
FAILED = "✗"


def cmd_compare(args: argparse.Namespace) -> int:
    from pitui.store.compare import CompareError, compare
    from pitui.store.jsonl import dumps
    from pitui.store.write.actions import ActionError, resolve_entry

    path = resolve_session(args.session, args.cwd, args.session_dir)
    session = load_session(path)
    try:
        a, b = resolve_entry(session, args.a).id, resolve_entry(session, args.b).id
        comparison = compare(session, a, b)
    except (ActionError, CompareError) as error:
        raise CliError(str(error)) from None
    if args.json:
        sys.stdout.buffer.write(dumps(comparison.to_json(), indent=True) + b"\n")
        return 0
    import shutil  # (not at the top: every command imports this module, via pitui.cli.commands)

    width = shutil.get_terminal_size((100, 24)).columns
    for line in comparison_lines(comparison, width):
        print(line)
    return 0


def comparison_lines(comparison: Comparison, width: int) -> list[str]:
    """The comparison as text ``width`` columns wide: the common entry, then each section with
    A's items beside B's (A above B under :data:`SIDE_BY_SIDE_WIDTH`)."""
    from pitui.store.compare import SECTIONS, entry_summary

    lines = []
    ancestor = comparison.ancestor
    if ancestor is None:
        lines.append("No common entry: the two are in separate trees")
    else:
        about = entry_summary(ancestor)
        kind = about["role"] or about["type"]
        lines.append(_cut(_one_line(f"Common entry {about['id']} ({kind}): {about['text']}"), width))
    relation = {
        "same": "A and B are the same entry: nothing apart",
        "a-above-b": "A is on B's path: only B has entries of its own",
        "b-above-a": "B is on A's path: only A has entries of its own",
    }.get(comparison.relation)
    if relation:
        lines.append(relation)
    lines.append(f"{ONLY_HERE} only on this side   {FAILED} failed")
    a, b = comparison.a, comparison.b
    rows: list[tuple[str, list[str], list[str]]] = [
        ("Branch", [f"   A {safe(str(a.entry.id))}"], [f"   B {safe(str(b.entry.id))}"])
    ]
    for key, title in SECTIONS:
        rows.append((title, _items(a.section(key)), _items(b.section(key))))
    rows.append(("Tokens and cost", _plain(a.totals_lines()), _plain(b.totals_lines())))
    rows.append(("Entries", _plain(a.entries_lines()), _plain(b.entries_lines())))
    if width >= SIDE_BY_SIDE_WIDTH:
        column = (width - 3) // 2
        for title, left, right in rows:
            lines.append("")
            lines.append(title)
            for one, two in zip_longest(left, right, fillvalue=""):
                lines.append(f"{_cut(one, column):<{column}} │ {_cut(two, column)}".rstrip())
        return lines
    for name, side_index in (("A", 1), ("B", 2)):
        lines.append("")
        lines.append(f"── {name} " + "─" * max(0, width - 5))
        for row in rows:
            lines.append(row[0])
            lines.extend(f"  {_cut(item, width - 2)}" for item in row[side_index])
    return lines


def _items(items: tuple[Item, ...]) -> list[str]:
    if not items:
        return ["   (none)"]
    return [
        f"{ONLY_HERE if item.only_here else ' '}{FAILED if item.failed else ' '} {_one_line(item.text)}"
        for item in items
    ]


def _plain(lines: list[str]) -> list[str]:
    return [f"   {line}" for line in lines]


def _one_line(text: str) -> str:
    return " ".join(safe(text).split())


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
