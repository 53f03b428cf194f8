"""The session tree widget (pitui.ui.widgets.session_tree): keys, mouse, messages, what is on screen."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from helpers.tree_app import TreeApp, make
from textual import events

from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.tree import FILTERS
from pitui.ui.widgets.session_tree import SessionTree


def ts(n: int) -> str:
    return f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}.000Z"


def session_of(*entries: dict[str, Any]) -> Session:
    header = {"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": "/p"}
    return Session.from_bytes(b"".join(orjson.dumps(e) + b"\n" for e in (header, *entries)))


def user(eid: str, parent: str | None, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "user", "content": text},
    }


def assistant(eid: str, parent: str | None, text: str, n: int) -> dict[str, Any]:
    return {
        "type": "message",
        "id": eid,
        "parentId": parent,
        "timestamp": ts(n),
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "stopReason": "stop"},
    }


def branched() -> Session:
    """Rows: u1, a1, then two branches: u2 [here] - a2 - u3 - a3 - a4 (the leaf, under two
    hidden labels) and b1 [there] - b2."""
    return session_of(
        user("u1", None, "start", 1),
        assistant("a1", "u1", "ok", 2),
        user("b1", "a1", "other way", 3),
        assistant("b2", "b1", "fine", 4),
        user("u2", "a1", "go on", 5),
        assistant("a2", "u2", "done", 6),
        user("u3", "a2", "more", 7),
        assistant("a3", "u3", "all done", 8),
        {"type": "label", "id": "l1", "parentId": "a3", "timestamp": ts(9), "targetId": "u2", "label": "here"},
        {"type": "label", "id": "l2", "parentId": "l1", "timestamp": ts(10), "targetId": "b1", "label": "there"},
        assistant("a4", "l2", "last", 11),
    )


def chain(count: int) -> Session:
    entries = []
    parent = None
    for i in range(count):
        eid = f"n{i}"
        make_entry = assistant if i % 2 else user
        entries.append(make_entry(eid, parent, f"answer {i}" if i % 2 else f"question {i}", i))
        parent = eid
    return session_of(*entries)


def lines(app: TreeApp) -> list[str]:
    """The tree's lines as the user sees them (trailing blanks cut)."""
    tree = app.query_one(SessionTree)
    return ["".join(segment.text for segment in tree.render_line(y)).rstrip() for y in range(tree.size.height)]


async def press(pilot: Any, *keys: str) -> None:
    await pilot.press(*keys)
    await pilot.pause()


# ---------------------------------------------------------------------------------------------
# keys


async def test_up_down_wrap_and_enter_chooses() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        assert tree.has_focus and tree.selected_id == "a4"
        await press(pilot, "down", "down", "down")
        assert tree.selected_id == "u1"  # wrapped to the top
        await press(pilot, "up")
        assert tree.selected_id == "b2"  # and back to the bottom
        await press(pilot, "up", "enter")
        assert app.last("selected") == ("selected", "b1")
        assert app.last("highlighted") == ("highlighted", "b1")


@pytest.mark.parametrize(("up", "down"), [("pageup", "pagedown"), ("left", "right"), ("ctrl+b", "ctrl+f")])
async def test_pages_move_by_the_height_of_the_widget(up: str, down: str) -> None:
    app = make(chain(100))
    async with app.run_test(size=(60, 12)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "home")
        assert tree.model.cursor == 0
        await press(pilot, down)
        assert tree.model.cursor == 12
        await press(pilot, down, up, up)
        assert tree.model.cursor == 0
        await press(pilot, "end")
        assert tree.model.cursor == 99


async def test_cursor_stays_on_screen() -> None:
    app = make(chain(100))
    async with app.run_test(size=(60, 10)) as pilot:
        tree = app.query_one(SessionTree)
        await pilot.pause()
        assert lines(app)[-1] == "› • assistant: answer 99"
        await press(pilot, "home")
        assert lines(app)[0] == "› • user: question 0"
        for _ in range(12):
            await pilot.press("down")
        await pilot.pause()
        assert lines(app)[-1] == "› • user: question 12"
        assert tree.scroll_offset.y == 3


@pytest.mark.parametrize("pair", [("ctrl+left", "ctrl+right"), ("alt+left", "alt+right")])
async def test_fold_or_up_and_unfold_or_down(pair: tuple[str, str]) -> None:
    fold, unfold = pair
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, fold)  # from the leaf up to the start of its branch
        assert tree.selected_id == "u2"
        await press(pilot, fold)
        assert lines(app)[:4] == [
            "  • user: start",
            "  • assistant: ok",
            "› ├⊞ • [here] user: go on +4",
            "  └⊟ [there] user: other way",
        ]
        await press(pilot, unfold)
        assert len(tree.model) == 9
        await press(pilot, unfold)
        assert tree.selected_id == "a4"


@pytest.mark.parametrize(
    ("key", "mode", "tag"),
    [
        ("ctrl+t", "no-tools", " [no-tools]"),
        ("ctrl+u", "user-only", " [user]"),
        ("ctrl+l", "labeled-only", " [labeled]"),
        ("ctrl+a", "all", " [all]"),
    ],
)
async def test_filter_keys_toggle_against_default(key: str, mode: str, tag: str) -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, key)
        assert tree.filter_mode == mode and tree.status.endswith(tag)
        assert app.last("status")[1] == tree.status
        await press(pilot, key)
        assert tree.filter_mode == "default"
        await press(pilot, key, "ctrl+d")
        assert tree.filter_mode == "default"


async def test_filter_cycle_keys() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        seen = []
        for _ in FILTERS:
            await press(pilot, "ctrl+o")
            seen.append(tree.filter_mode)
        assert seen == [*FILTERS[1:], "default"]
        await press(pilot, "ctrl+shift+o")
        assert tree.filter_mode == "all"


async def test_label_times() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "T")
        assert tree.status == "(7/9) [+label time]"
        assert "  ├⊟ • [here] 1/1 10:00 user: go on" in lines(app)
        await press(pilot, "shift+t")
        assert tree.status == "(7/9)" and tree.model.query == ""


async def test_beyond_pi_jumps() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "home", "ctrl+g")
        assert tree.selected_id == "a4"
        await press(pilot, "alt+up")
        assert tree.selected_id == "a3"
        await press(pilot, "alt+down")
        assert tree.selected_id == "b1"
        await press(pilot, "ctrl+up")
        assert tree.selected_id == "u2"
        await press(pilot, "ctrl+down")
        assert tree.selected_id == "b1"
        await press(pilot, "alt+n")
        assert tree.selected_id == "u2"  # wraps around to the first label
        await press(pilot, "alt+p")
        assert tree.selected_id == "b1"


async def test_typing_searches_backspace_and_escape() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "a", "l", "L", "l", "space", "d")
        assert tree.query == "all d"  # L is kept for label editing
        # The rows found, and how many entries each hides under it.
        assert lines(app)[:2] == ["› • assistant: all done +3", ""]
        assert tree.status == "(1/1)"
        assert app.last("status") == ("status", "(1/1)", "all d")
        await press(pilot, "backspace", "backspace")
        assert tree.query == "all"
        await press(pilot, "escape")
        assert tree.query == "" and app.last("escape") is None
        await press(pilot, "escape")  # nothing to clear: the screen gets it
        assert app.last("escape") == ("escape",)


async def test_paste_goes_into_the_search() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        tree.post_message(events.Paste("other\nway"))
        await pilot.pause()
        assert tree.query == "other way" and tree.selected_id == "b1"


async def test_keys_can_be_remapped() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        app.set_keymap({"tree.cursor_down": "j", "tree.leaf": "ctrl+y"})
        tree = app.query_one(SessionTree)
        await press(pilot, "j")
        assert tree.selected_id == "b1" and tree.query == ""
        await press(pilot, "ctrl+y")
        assert tree.selected_id == "a4"


async def test_first_search_of_a_big_session_runs_in_a_thread() -> None:
    app = make(chain(6000))
    async with app.run_test(size=(60, 10)) as pilot:
        tree = app.query_one(SessionTree)
        await pilot.press("q", "u", "e", "s", "t", "i", "o", "n", "space", "5", "9", "9", "8")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert tree.query == "question 5998" and tree.selected_id == "n5998" and tree.status == "(1/1)"


# ---------------------------------------------------------------------------------------------
# mouse, messages, text


async def test_click_selects_and_double_click_chooses() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await pilot.click(SessionTree, offset=(10, 1))
        await pilot.pause()
        assert tree.selected_id == "a1" and app.last("highlighted") == ("highlighted", "a1")
        assert app.last("selected") is None
        await pilot.click(SessionTree, offset=(10, 2), times=2)
        await pilot.pause()
        assert app.last("selected") == ("selected", "u2")


async def test_highlighted_is_posted_for_the_first_row_and_each_move() -> None:
    app = make(branched())
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        assert app.seen[0] == ("highlighted", "a4")
        await press(pilot, "up")
        assert app.last("highlighted") == ("highlighted", "a3")
        count = len([m for m in app.seen if m[0] == "highlighted"])
        await press(pilot, "ctrl+t")  # no move: nothing new
        assert len([m for m in app.seen if m[0] == "highlighted"]) == count


async def test_untrusted_text_is_shown_literally() -> None:
    session = session_of(
        user("u1", None, "\x1b[31mred[bold]x[/] \u202eevil", 1), assistant("a1", "u1", "[link=http://x]click[/link]", 2)
    )
    app = make(session)
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        shown = lines(app)
        assert shown[0] == "  • user: ␛red[bold]x[/] \ufffdevil"  # an escape sequence is one ␛, nothing left
        assert shown[1] == "› • assistant: [link=http://x]click[/link]"
        for line in shown:
            assert "\x1b" not in line and "\u202e" not in line


async def test_long_rows_are_cut_not_wrapped() -> None:
    session = session_of(user("u1", None, "word " * 40, 1))
    app = make(session)
    async with app.run_test(size=(30, 5)) as pilot:
        await pilot.pause()
        assert lines(app)[0] == "› • user: word word word word…"
        assert lines(app)[1] == ""


async def test_empty_result_and_no_model() -> None:
    app = make(branched())
    async with app.run_test(size=(40, 6)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "z", "z", "z")
        assert tree.status == "(0/0)" and lines(app) == [""] * 6
        assert app.last("highlighted") == ("highlighted", None)
        await press(pilot, "enter", "up", "ctrl+left")
        assert app.last("selected") is None
        tree.model = None
        await pilot.pause()
        assert tree.status == "(0/0)" and tree.selected_id is None


async def test_reload_follows_the_leaf() -> None:
    session = branched()
    app = make(session)
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        session.add(Entry.from_data(user("u9", "a4", "and then", 20)))
        assert tree.reload()
        await pilot.pause()
        assert tree.selected_id == "u9" and app.last("highlighted") == ("highlighted", "u9")
        assert "› │     • user: and then" in lines(app)


# ---------------------------------------------------------------------------------------------
# deep branches


def staircase(depth: int) -> Session:
    """A path that branches at every step (a short side branch each time), so each step on
    the active path is indented one level more than the one before."""
    entries: list[dict[str, Any]] = [user("m0", None, "start", 0)]
    for i in range(1, depth):
        entries.append(user(f"s{i}", f"m{i - 1}", f"side {i}", 2 * i))
        entries.append(assistant(f"m{i}", f"m{i - 1}", f"deep {i}", 2 * i + 1))
    return session_of(*entries)


async def test_a_deep_cursor_row_pans_the_rows_so_its_text_shows() -> None:
    app = make(staircase(40))
    async with app.run_test(size=(60, 20)) as pilot:
        tree = app.query_one(SessionTree)
        await press(pilot, "ctrl+g")  # to the leaf, centred
        assert tree.selected_id == "m39"
        cursor_line = next(line for line in lines(app) if line.startswith("›"))
        assert cursor_line.startswith("›«")
        assert "assistant: deep 39" in cursor_line
        await press(pilot, "home")  # the first row starts at the left edge again
        assert lines(app)[0].startswith("› • user: start")  # no pan: rows as pi draws them
        assert not any("«" in line for line in lines(app))


def _cells(strips: list[Any]) -> list[list[tuple[str, Any]]]:
    return [[(char, segment.style) for segment in strip for char in segment.text] for strip in strips]


async def test_a_scrolled_screen_is_what_a_full_repaint_draws() -> None:
    """Scrolling repaints from kept rows and moves the scrollbar only when its thumb moves: after
    each step the screen (rows, cursor, scrollbar) is what drawing everything anew gives."""
    app = make(chain(3_000))
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        tree = app.query_one(SessionTree)
        thumbs = set()
        for step in range(120):
            await pilot.press("down" if step < 90 else "up")
            if step % 15:
                continue
            await pilot.pause()
            shown = _cells(app.screen._compositor.render_strips())
            tree.vertical_scrollbar.refresh()
            tree._strips.clear()
            tree.refresh()
            await pilot.pause()
            assert _cells(app.screen._compositor.render_strips()) == shown, f"after step {step}"
            thumbs.add(str(tree.vertical_scrollbar.render_lines(tree.vertical_scrollbar.region.reset_offset)))
        assert round(tree.scroll_y) > 0
        assert len(thumbs) > 1  # the thumb did move on screen


async def test_the_tree_draws_its_lines_as_textual_would() -> None:
    """The lines handed straight to the compositor are those Textual's style cache makes, the
    app's line filters (here: no colour) applied."""
    from textual.filter import Monochrome
    from textual.widget import Widget

    app = make(branched())
    async with app.run_test(size=(50, 8)) as pilot:
        app._filters.append(Monochrome())
        await pilot.pause()
        tree = app.query_one(SessionTree)
        region = tree.size.region
        assert _cells(tree.render_lines(region)) == _cells(Widget.render_lines(tree, region))
