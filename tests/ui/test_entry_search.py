"""Find entries, driven as a user drives it: Ctrl+F in the picker, text typed, the hits seen,
Enter on one opening its session at that entry, Escape back to the picker as it was."""

from __future__ import annotations

from pathlib import Path

from helpers.apps import demo_app, picker
from helpers.pilot import feed, screen_lines, settle, type_text, until

from pitui.config import Config
from pitui.ui.screens.entry_search import EntrySearchScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_tree import SessionTree

SIZE = (120, 36)
USER_HIT = "94d0f69b"  # "... wind_speed_unit query parameters." (a user message, weatherapp)


def entries_screen(app) -> EntrySearchScreen:
    screen = app.screen
    assert isinstance(screen, EntrySearchScreen)
    return screen


async def opened_at(pilot, entry_id: str) -> SessionScreen:
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.session is not None)
    screen = app.screen
    tree = screen.query_one(SessionTree)
    view = screen.query_one(ConversationView)
    await until(pilot, lambda: view.items and view.items[-1].entry_id == entry_id)
    assert tree.selected_id == entry_id  # the highlighted row is the entry
    return screen


async def test_typed_text_finds_entries_and_enter_opens_the_session_there(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await settle(pilot)
        screen = entries_screen(app)
        await type_text(pilot, "Speed query")  # a capital and a q: text, not keys
        assert screen.search_box.value == "Speed query"
        lines = screen_lines(app)
        assert any(line.strip().startswith("Find entries  in this folder") for line in lines)
        hit_rows = [n for n, line in enumerate(lines) if line.rstrip().endswith("you · 2d")]
        assert len(hit_rows) == 1
        assert lines[hit_rows[0]].lstrip().startswith("I want a `--units imperial` option")
        assert "wind_speed_unit query parameters." in lines[hit_rows[0] + 1]
        assert lines[-1].strip() == "1 hit"
        await pilot.press("enter")
        view = await opened_at(pilot, USER_HIT)
        assert any(line.endswith("▌ query parameters.") for line in (s.rstrip("│ ") for s in screen_lines(app)))
        await pilot.press("escape")  # the session view: back to the hits
        await settle(pilot)
        assert entries_screen(app).search_box.value == "Speed query"
        assert view is not app.screen


async def test_keys_in_one_burst_act_in_order(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # One read: the key that opens the screen, the query, a move, Enter. Enter waits for the
        # hits of the text before it, then opens the one highlighted (the second: newest first).
        feed(pilot, "ctrl+f", *"README", "down", "enter")
        screen = await opened_at(pilot, "ecdaef08")  # "Now update the README." (the second hit)
        assert screen.session_path.endswith("019cfc16-da82-725e-a76b-f9afad219146.jsonl")


async def test_the_pane_opens_at_the_top_of_a_long_hit(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        # An assistant message taller than the pane, with the match near its top: the pane
        # shows the message from its start, where the match is, not the end of the path.
        feed(pilot, "ctrl+f", *'"part of the cache key"', "enter")
        await opened_at(pilot, "ae79c7fd")
        await settle(pilot)
        pane = [line.split("││")[1] for line in screen_lines(app)[3:20] if "││" in line]
        assert pane[0].startswith("▌ Assistant")
        assert any("the cache" in line for line in pane)


async def test_escape_goes_back_to_the_picker_with_its_search(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await type_text(pilot, "cache")
        await pilot.press("ctrl+f")
        await type_text(pilot, "README")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is picker(app)
        assert picker(app).search_box.value == "cache"


async def test_tab_searches_all_projects(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await type_text(pilot, "README")
        here = len(entries_screen(app).hits)
        await pilot.press("tab")
        await settle(pilot)
        assert any("Find entries  in all projects" in line for line in screen_lines(app))
        assert len(entries_screen(app).hits) > here


async def test_an_entry_the_filter_hides_is_shown(tmp_path: Path) -> None:
    app = demo_app(tmp_path, config=Config(tree_filter="user-only"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await type_text(pilot, '"README updated"')  # an assistant reply: user-only would hide it
        await pilot.press("enter")
        screen = await opened_at(pilot, "77e8f95e")
        assert screen.query_one(SessionTree).model.filter_mode == "default"


async def test_find_entries_is_in_the_help_and_the_hints(tmp_path: Path) -> None:
    app = demo_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert any("ctrl+f find entries" in line for line in screen_lines(app)[:4])
        titles = [command.title for command in picker(app).palette_commands()]
        assert "search: Find entries in every session" in titles
