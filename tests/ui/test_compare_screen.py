"""Comparing two branches from the session view, as a user does it: mark, mark again, read both
sides, jump to an entry, continue a branch (the same write as Enter in the tree)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
from helpers.apps import SIZE, opened, static_text, view_app
from helpers.compare_sessions import branched
from helpers.pilot import until
from helpers.tree_build import chain
from textual.pilot import Pilot

from pitui.store.compare import compare
from pitui.ui.screens.compare import SECTION_ITEMS, CompareScreen, comparison_rows
from pitui.ui.screens.dialogs import BranchDialog, ConfirmDialog
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.session_tree import SessionTree


def tree_of(pilot: Pilot[Any]) -> SessionTree:
    return pilot.app.screen.query_one(SessionTree)


async def highlight(pilot: Pilot[Any], entry_id: str) -> None:
    tree = tree_of(pilot)
    tree.select(entry_id)
    await until(pilot, lambda: tree.selected_id == entry_id)


async def compared(pilot: Pilot[Any], a: str, b: str) -> CompareScreen:
    await highlight(pilot, a)
    await pilot.press("ctrl+y")
    await until(pilot, lambda: "Marked a4" in static_text(pilot.app.screen, "#session-status"))
    assert "ctrl+y on another entry compares (Escape clears)" in static_text(pilot.app.screen, "#session-status")
    assert tree_of(pilot).marked_id == a
    await highlight(pilot, b)
    await pilot.press("ctrl+y")
    await until(pilot, lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.comparison is not None)
    return pilot.app.screen  # type: ignore[return-value]


def cells(screen: CompareScreen) -> list[str]:
    table = screen.query_one("#compare-table")
    return [str(cell) for row in range(table.row_count) for cell in table.get_row_at(row)]  # type: ignore[attr-defined]


async def test_mark_then_mark_another_shows_both_sides(tmp_path: Path) -> None:
    path = branched(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        screen = await compared(pilot, "a4", "a7")
        shown = cells(screen)
        assert "+  Now add a changelog entry" in shown and "+  Run the linter instead" in shown
        assert "+✗ ruff check ." in shown  # only on B, and failed
        assert "   CHANGELOG.md" in shown  # changed on both sides: not marked
        assert "The retry loop was off by one." in static_text(screen, "#compare-ancestor")
        assert screen.item is not None and screen.item.text == "Now add a changelog entry"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen))
        assert tree_of(pilot).marked_id is None


async def test_pressing_it_on_the_marked_entry_or_escape_unmarks(tmp_path: Path) -> None:
    path = branched(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await highlight(pilot, "a4")
        await pilot.press("ctrl+y", "ctrl+y")
        await until(pilot, lambda: "Mark cleared" in static_text(screen, "#session-status"))
        assert tree_of(pilot).marked_id is None
        await pilot.press("ctrl+y", "escape")
        await until(pilot, lambda: tree_of(pilot).marked_id is None)
        assert isinstance(pilot.app.screen, SessionScreen)  # Escape cleared the mark, did not leave


async def test_keys_in_one_burst_act_in_order_and_enter_jumps_to_the_entry(tmp_path: Path) -> None:
    path = branched(tmp_path)
    async with view_app(path, tmp_path).run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a4")
        await pilot.press("ctrl+y")
        await highlight(pilot, "a7")
        # Open, go to side B, down to its second item (B's final answer), Enter: one burst.
        await pilot.press("ctrl+y", "right", "down", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen) and tree_of(pilot).selected_id == "a7")
        assert static_text(pilot.app.screen, "#session-status") == "At entry a7, from the comparison"
        before = path.read_bytes()
        await highlight(pilot, "a4")
        await pilot.press("ctrl+y")
        await highlight(pilot, "a7")
        await pilot.press("ctrl+y", "right", "down", "down", "down", "down", "down", "down", "enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, SessionScreen) and tree_of(pilot).selected_id == "r3")
        assert path.read_bytes() == before  # jumping writes nothing


async def test_continue_writes_what_enter_in_the_tree_writes(tmp_path: Path) -> None:
    paths = []
    for name in ("via-compare", "via-tree"):
        folder = tmp_path / name
        folder.mkdir()
        paths.append(branched(folder))
    via_compare, via_tree = paths
    async with view_app(via_compare, tmp_path / "via-compare").run_test(size=SIZE) as pilot:
        await opened(pilot)
        await compared(pilot, "a4", "a7")
        await pilot.press("ctrl+a")  # continue A: asked first
        await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmDialog))
        assert via_compare.read_bytes() == via_tree.read_bytes()  # nothing written yet
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog))
        await pilot.press("enter")  # No summary
        await until(pilot, lambda: "wrote a pitui.branch entry" in static_text(pilot.app.screen, "#session-status"))
    async with view_app(via_tree, tmp_path / "via-tree").run_test(size=SIZE) as pilot:
        await opened(pilot)
        await highlight(pilot, "a4")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(pilot.app.screen, BranchDialog))
        await pilot.press("enter")
        await until(pilot, lambda: "wrote a pitui.branch entry" in static_text(pilot.app.screen, "#session-status"))
    one, two = (orjson.loads(p.read_bytes().splitlines()[-1]) for p in paths)
    assert one["customType"] == two["customType"] == "pitui.branch" and one["parentId"] == two["parentId"] == "a4"
    assert {k: v for k, v in one.items() if k not in ("id", "timestamp")} == {
        k: v for k, v in two.items() if k not in ("id", "timestamp")
    }


def test_the_command_prints_both_sides_and_json(tmp_path: Path) -> None:
    path = branched(tmp_path)
    run = [sys.executable, "-m", "pitui", "compare", str(path)]
    env = {"COLUMNS": "120", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(Path.cwd())}
    text = subprocess.run([*run, "a4", "a7"], capture_output=True, text=True, check=True, env=env).stdout
    assert "Common entry a2 (assistant): The retry loop was off by one." in text
    assert any(
        line.startswith("+  Now add a changelog entry") and "│ +  Run the linter instead" in line
        for line in text.splitlines()
    )
    value = json.loads(
        subprocess.run([*run, "a4", "a7", "--json"], capture_output=True, text=True, check=True, env=env).stdout
    )
    assert value["a"]["entry"] == "a4" and value["b"]["failures"][0]["text"] == "ruff check ."
    missing = subprocess.run([*run, "a4", "zz"], capture_output=True, text=True, env=env)
    assert missing.returncode == 1 and "no entry 'zz'" in missing.stderr and not missing.stdout


def test_a_long_side_shows_its_first_and_last_items_and_how_many_are_left_out() -> None:
    build = chain(50_000)
    build.user("side", "n10", "a question on the side")
    rows = comparison_rows(compare(build.session(), "n49999", "side"))
    prompts = [row.cells[0] for row in rows[1 : rows.index(next(r for r in rows if r.title == "Final answer"))]]
    assert len(prompts) == SECTION_ITEMS + 1  # the first 100, a line for the rest, the last 100
    assert prompts[0].text == "question 12" and prompts[-1].text == "question 49998"  # type: ignore[union-attr]
    assert prompts[SECTION_ITEMS // 2] == "… 24,794 more prompts (pitui compare --json lists them all)"
    assert rows[1].cells[1].text == "a question on the side"  # type: ignore[union-attr]
