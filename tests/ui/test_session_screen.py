"""The session view as a user sees it: the tree beside the conversation, the header, what
happens while pi writes the file, and files that cannot be read."""

from __future__ import annotations

import gc
import html
import os
import sys
import threading
from pathlib import Path
from typing import Any

from helpers.apps import SIZE, demo_file, opened, static_text, view_app
from helpers.pilot import screen_text, until
from textual.command import CommandList

from devkit.builder import entry, header, lines, msg, write
from pitui.store.conversation import CompactionSummary, UserMessage
from pitui.store.reader import Session
from pitui.store.stats import session_preview
from pitui.ui.format import format_cost, format_tokens, plural
from pitui.ui.screens.help import HelpScreen, key_rows
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.session import SessionScreen
from pitui.ui.widgets.conversation.view import ConversationView
from pitui.ui.widgets.session_tree import SessionTree


def chain(path: Path, texts: list[str], **head: Any) -> Path:
    objects: list[Any] = [header(**head)]
    parent = None
    for n, text in enumerate(texts):
        eid = f"e{n:07d}"
        objects.append(msg(eid, parent, "user" if n % 2 == 0 else "assistant", text, n=n))
        parent = eid
    return write(path, *objects)


async def test_opens_on_the_leaf_with_the_whole_path(tmp_path: Path) -> None:
    path = demo_file(tmp_path, "*weatherapp*/*019cf5ce*")  # its leaf is a message (others' are usage entries)
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        tree = screen.query_one(SessionTree)
        assert tree.selected_id == screen.session.leaf_id
        assert tree.has_focus
        view = screen.query_one(ConversationView)
        # The last item shown is the leaf's message; the first is the path's start.
        assert view.items[-1].entry_id == screen.session.leaf_id
        assert len(view.items) == len(screen.session.context().messages)
        facts = static_text(screen, "#session-facts")
        assert f"{len(screen.session.entries):,} entries" in facts
        title = static_text(screen, "#session-title")
        assert title.startswith("Cache never expires after reboot  /home/user/projects/weatherapp")
        assert "leaf " + screen.session.leaf_id[:8] in facts
        await until(pilot, lambda: "tokens" in static_text(screen, "#session-facts"))
        # Counted from the session read, they are the figures the picker's preview shows.
        preview = session_preview(str(path), use_cache=False)
        facts = static_text(screen, "#session-facts")
        assert f"{format_tokens(preview.tokens.total)} tokens" in facts
        assert format_cost(preview.cost) in facts and "$" in facts
        assert plural(preview.leaves, "branch", "branches") in facts
        assert static_text(screen, "#tree-status").startswith("(")


async def test_moving_in_the_tree_shows_the_path_up_to_that_entry(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["first question", "first answer", "second question", "second answer"])
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(ConversationView)
        assert [item.entry_id for item in view.items] == ["e0000000", "e0000001", "e0000002", "e0000003"]
        await pilot.press("up", "up")
        await until(pilot, lambda: [item.entry_id for item in view.items] == ["e0000000", "e0000001"])
        assert screen.query_one(SessionTree).selected_id == "e0000001"
        await pilot.press("ctrl+g")  # back to the leaf
        await until(pilot, lambda: len(view.items) == 4)


async def test_escape_goes_back_to_the_picker_and_search_first_clears(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["alpha", "beta", "gamma"])
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("g", "a")
        await until(pilot, lambda: screen.query_one(SessionTree).query == "ga")
        assert "search: ga" in static_text(screen, "#tree-status")
        await pilot.press("escape")  # clears the search, stays
        await pilot.pause()
        assert app.screen is screen and screen.query_one(SessionTree).query == ""
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))


async def test_the_session_read_is_kept_out_of_collections_while_it_is_shown(tmp_path: Path, monkeypatch) -> None:
    """The view freezes the heap after its read (the entries are not walked by the collector);
    leaving it gives them back, so that a closed session can be freed. (The picker it goes back
    to freezes its own listing later, after a collection.)"""
    from pitui.store import tuning

    thaw = tuning.thaw_heap
    thawed: list[str] = []

    def recorded() -> None:
        caller = sys._getframe(1).f_code
        thawed.append(f"{caller.co_filename.rpartition('/')[2]}:{caller.co_name}")
        thaw()

    monkeypatch.setattr(tuning, "thaw_heap", recorded)
    path = chain(tmp_path / "s.jsonl", ["alpha", "beta"])
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        entry = screen.session.entries[-1]
        assert gc.get_freeze_count() > 0
        assert not gc.is_tracked(entry) or all(entry is not o for o in gc.get_objects())
        thawed.clear()
        await pilot.press("escape")
        await until(pilot, lambda: "session.py:on_unmount" in thawed)  # given back as the view closed
        assert isinstance(app.screen, PickerScreen)


async def test_while_the_session_is_read_the_pane_does_not_say_it_has_no_messages(tmp_path: Path, monkeypatch) -> None:
    path = chain(tmp_path / "s.jsonl", ["alpha", "beta"])
    release = threading.Event()
    load = Session.load.__func__  # type: ignore[attr-defined]

    def slow_load(cls: type[Session], *args: Any, **kwargs: Any) -> Session:
        release.wait(10)
        return load(cls, *args, **kwargs)

    monkeypatch.setattr(Session, "load", classmethod(slow_load))
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "Reading the session" in static_text(app.screen, "#tree-status"))
        await pilot.pause()
        assert ConversationView.EMPTY not in screen_text(app)
        release.set()
        screen = await opened(pilot)
        assert len(screen.query_one(ConversationView).items) == 2


async def test_untrusted_text_is_shown_as_text(tmp_path: Path) -> None:
    hostile = "\x1b[31mred\x1b[0m [bold]not bold[/] \x1b]0;title\x07 \u202eevil"
    path = chain(tmp_path / "s.jsonl", [hostile, "ok"])
    write(path, *[*_objects(path), entry("session_info", "n0000001", "e0000001", n=5, name="[b]name[/b] \x1b[2J")])
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.pause()
        shown = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "[bold]not bold[/]" in shown
        assert "[b]name[/b]" in shown
        assert "\x1b" not in "".join(static_text(screen, s) for s in ("#session-title", "#session-facts"))
        for line in screen.query_one(SessionTree).render_lines(screen.query_one(SessionTree).region):
            assert "\x1b" not in line.text and "\u202e" not in line.text


def _objects(path: Path) -> list[Any]:
    import orjson

    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


async def test_a_compaction_opens_to_show_what_it_replaced(tmp_path: Path) -> None:
    path = demo_file(tmp_path)
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        view = screen.query_one(ConversationView)
        compactions = [i for i, item in enumerate(view.items) if isinstance(item, CompactionSummary)]
        assert compactions, "the demo session has a compaction on its active path"
        view.focus()
        await pilot.press("home")
        while view.cursor_item is not view.items[compactions[0]]:
            await pilot.press("down")
        await pilot.press("enter")
        await until(pilot, lambda: any(isinstance(b.item, UserMessage) and b.depth == 1 for b in view._blocks))


async def test_pi_appending_shows_at_once_and_the_view_follows_the_leaf(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["question", "answer"])
    app = view_app(path, tmp_path, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        tree = screen.query_one(SessionTree)
        with open(path, "ab") as file:  # pi writes a whole line, then the next one torn
            file.write(lines(msg("e0000002", "e0000001", "user", "follow-up", n=3)))
            file.write(lines(msg("e0000003", "e0000002", "assistant", "reply", n=4))[:40])
        # Touched until the view reads it: the write may come before the watch has started.
        await until(pilot, lambda: tree.selected_id == "e0000002", poke=lambda: os.utime(path))
        view = screen.query_one(ConversationView)
        await until(pilot, lambda: view.items and view.items[-1].entry_id == "e0000002")
        assert not screen.session.problems or "incomplete" in screen.session.problems[-1].reason
        with open(path, "ab") as file:  # the torn line is finished
            file.write(lines(msg("e0000003", "e0000002", "assistant", "reply", n=4))[40:])
        await until(pilot, lambda: tree.selected_id == "e0000003")
        assert screen.session.problems == []
        assert "4 entries" in static_text(screen, "#session-facts")


async def test_appends_do_not_move_a_cursor_that_is_elsewhere(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["one", "two", "three"])
    app = view_app(path, tmp_path, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        tree = screen.query_one(SessionTree)
        await pilot.press("up")
        await until(pilot, lambda: tree.selected_id == "e0000001")
        with open(path, "ab") as file:
            file.write(lines(msg("e0000003", "e0000002", "assistant", "four", n=4)))
        await until(pilot, lambda: "4 entries" in static_text(screen, "#session-facts"), poke=lambda: os.utime(path))
        assert tree.selected_id == "e0000001"


async def test_a_removed_file_is_marked_and_what_was_read_stays(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["one", "two"])
    app = view_app(path, tmp_path, watch=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        # The watch is on once an append shows (touched until it does: the watch starts late).
        with open(path, "ab") as file:
            file.write(lines(msg("e0000002", "e0000001", "user", "three", n=2)))
        await until(pilot, lambda: "3 entries" in static_text(screen, "#session-facts"), poke=lambda: os.utime(path))
        conversation = screen.query_one(ConversationView)
        await until(pilot, lambda: len(conversation.items) == 3)  # the pane follows the tree
        os.remove(path)
        await until(pilot, lambda: "(file removed)" in static_text(screen, "#session-title"))
        assert len(conversation.items) == 3
        assert "3 entries" in static_text(screen, "#session-facts")


async def test_a_file_that_is_not_a_session_is_a_message_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": "world"}\n')
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, SessionScreen)
                and "Cannot read this session" in static_text(app.screen, "#session-facts")
            ),
        )
        assert path.read_text() == '{"hello": "world"}\n'
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))


async def test_skipped_lines_are_counted_in_the_header(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["one", "two"])
    with open(path, "ab") as file:
        file.write(b"{not json\n")
    before = path.read_bytes()
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "1 line skipped" in static_text(screen, "#session-facts")
    assert path.read_bytes() == before


async def test_the_command_palette_runs_the_views_actions(tmp_path: Path) -> None:
    path = demo_file(tmp_path)
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        tree = screen.query_one(SessionTree)
        await pilot.press("f2")
        await until(pilot, lambda: app.screen.query(CommandList))
        for char in "user only":
            await pilot.press("space" if char == " " else char)
        palette = app.screen
        await until(pilot, lambda: palette.query_one(CommandList).option_count == 1)
        await pilot.press("enter")
        await until(pilot, lambda: tree.filter_mode == "user-only")
        assert "[user]" in static_text(screen, "#tree-status")


async def test_keys_screen_lists_the_tree_and_conversation_keys_with_their_ids(tmp_path: Path) -> None:
    path = chain(tmp_path / "s.jsonl", ["one", "two"])
    app = view_app(path, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        screen = app.screen
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        ids = {row.binding_id for row in key_rows(screen)}
        for binding_id in (
            "tree.leaf",
            "tree.filter_next",
            "conversation.toggle_thinking",
            "session.back",
            "app.quit",
            "app.help",
        ):
            assert binding_id in ids
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
