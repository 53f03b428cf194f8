"""The picker's list widget and pi's row formats, without files: rows are made in memory."""

from __future__ import annotations

import math
from typing import Any

import pytest
from textual.app import App, ComposeResult

from pitui.store.catalog import SearchHit, SessionInfo
from pitui.store.threads import ListRow, threaded_rows
from pitui.ui.format import row_title, shorten_home_path
from pitui.ui.widgets.session_list import SessionList, _fit, _fit_left

NOW = 1_000_000_000_000.0
MIN = 60_000.0
DAY = 1440 * MIN


def info(
    path: str,
    *,
    modified: float = NOW,
    name: str | None = None,
    first: str = "hello",
    count: int = 1,
    parent: Any = None,
    cwd: str = "/home/me/proj",
) -> SessionInfo:
    return SessionInfo(
        path=path,
        id=path,
        cwd=cwd,
        name=name,
        parent_session_path=parent,
        created=None,
        modified=modified,
        message_count=count,
        first_message=first,
    )


# -- formats ---------------------------------------------------------------------------------------


def test_home_becomes_tilde():
    assert shorten_home_path("/home/me/proj", "/home/me") == "~/proj"
    assert shorten_home_path("/srv/x", "/home/me") == "/srv/x"
    assert shorten_home_path("/home/me/proj", "") == "/home/me/proj"


@pytest.mark.parametrize(
    ("path", "expected"),
    [  # printed by pi 1.6.0's shortenHomePath, with home /home/me and /home/me/
        ("/home/me", "~"),
        ("/home/me/", "~"),
        ("/home/me/x", "~/x"),
        ("/home/me2/x", "/home/me2/x"),
        ("/home/me/./x/../y", "~/y"),
        ("/home/me//x", "~/x"),
        ("rel/x", "rel/x"),
        ("/srv", "/srv"),
    ],
)
def test_home_shortening_is_pi_16s(path, expected):
    assert shorten_home_path(path, "/home/me") == expected
    assert shorten_home_path(path, "/home/me/") == expected


def test_title_is_the_name_else_the_first_message_made_safe():
    assert row_title(info("a", first="  hi\nthere\t ")) == "hi there"
    assert row_title(info("a", name="Named", first="ignored")) == "Named"
    # An escape sequence is one visible ␛, nothing left of it; a bidi override is U+FFFD.
    assert row_title(info("a", first="\x1b[31mred\x1b[0m \u202ex")) == "␛red␛ \ufffdx"


def test_fit_cuts_with_an_ellipsis_and_counts_wide_characters():
    assert _fit("hello", 5) == "hello"
    assert _fit("hello world", 8) == "hello w…"
    assert _fit("日本語テキスト", 7) == "日本語…"
    assert _fit("abc", 0) == ""


def test_fit_left_keeps_the_end_from_a_folder_boundary():
    assert _fit_left("/home/user/projects/weatherapp", 40) == "/home/user/projects/weatherapp"
    assert _fit_left("/home/user/projects/weatherapp", 20) == "…projects/weatherapp"
    assert _fit_left("/home/user/projects/weatherapp", 17) == "…/weatherapp"
    assert _fit_left("abcdefghijklmnop", 6) == "…lmnop"


# -- threaded order ----------------------------------------------------------------------------------


def test_threaded_rows_follow_pi():
    rows = threaded_rows(
        [
            info("/s/a", modified=NOW - 1),
            info("/s/b", modified=NOW - 2, parent="/s/a"),
            info("/s/c", modified=NOW - 3, parent="/s/b"),
            info("/s/d", modified=NOW - 4, parent="/s/a"),
            info("/s/e", modified=NOW - 5, parent="/s/c"),
            info("/s/f", modified=NOW - 0.5, parent="/s/missing"),
        ],
        canonical=lambda p: p,
    )
    assert [(row.prefix, row.path) for row in rows] == [
        ("", "/s/f"),  # its parent is not listed: a root, newest first
        ("", "/s/a"),
        ("   ├─ ", "/s/b"),
        ("   │  └─ ", "/s/c"),
        ("   │     └─ ", "/s/e"),
        ("   └─ ", "/s/d"),
    ]


def test_threaded_rows_compare_real_paths():
    real = {"/link/a": "/real/a"}
    rows = threaded_rows(
        [info("/real/a"), info("/x/b", modified=NOW - 1, parent="/link/a")], canonical=lambda p: real.get(p, p)
    )
    assert [row.prefix for row in rows] == ["", "   └─ "]


def test_a_loop_of_parents_shows_every_session_once():
    rows = threaded_rows(
        [
            info("/s/a", parent="/s/b"),
            info("/s/b", modified=NOW - 1, parent="/s/a"),
            info("/s/self", modified=NOW - 2, parent="/s/self"),
        ],
        canonical=lambda p: p,
    )
    assert sorted(row.path for row in rows) == ["/s/a", "/s/b", "/s/self"]


def test_a_deep_chain_does_not_recurse():
    infos = [info(f"/s/{i}", parent=f"/s/{i - 1}" if i else None, modified=NOW - i) for i in range(5000)]
    rows = threaded_rows(infos, canonical=lambda p: p)
    assert len(rows) == 5000 and rows[-1].prefix.endswith("└─ ")


def test_unknown_times_sort_last():
    rows = threaded_rows([info("/s/nan", modified=math.nan), info("/s/old", modified=1)], canonical=lambda p: p)
    assert [row.path for row in rows] == ["/s/old", "/s/nan"]


# -- the widget --------------------------------------------------------------------------------------


class ListApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def compose(self) -> ComposeResult:
        yield SessionList()

    def on_session_list_highlighted(self, message: SessionList.Highlighted) -> None:
        self.seen.append(("highlighted", message.row.path if message.row else None))

    def on_session_list_chosen(self, message: SessionList.Chosen) -> None:
        self.seen.append(("chosen", message.row.path))

    def on_session_list_snippets_wanted(self, message: SessionList.SnippetsWanted) -> None:
        self.seen.append(("snippets", len(message.hits)))


def lines_of(widget: SessionList) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.scrollable_content_region.height)]


async def test_rows_as_pi_draws_them():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        widget.configure(now_ms=NOW)
        widget.set_rows(
            [
                ListRow(info("/a", first="first session", count=12, modified=NOW - 5 * MIN)),
                ListRow(info("/b", name="Named one", count=3, modified=NOW - 2 * DAY), "   └─ "),
            ]
        )
        await pilot.pause()
        assert lines_of(widget)[:2] == [
            "› first session".ljust(55) + "12 5m",
            "     └─ Named one".ljust(56) + "3 2d",
        ]
        widget.configure(show_cwd=True)
        await pilot.pause()
        assert lines_of(widget)[0].endswith(" ~/proj 12 5m") or lines_of(widget)[0].endswith("/home/me/proj 12 5m")


async def test_cursor_moves_clamp_and_announce_once_per_session():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        widget.set_rows([ListRow(info(f"/{i}")) for i in range(20)])
        widget.move_cursor(-1)
        widget.move_cursor(3)
        widget.set_cursor(100)
        widget.move_cursor(1)
        await pilot.pause()
        assert widget.cursor == 19
        assert app.seen == [("highlighted", "/0"), ("highlighted", "/3"), ("highlighted", "/19")]
        assert lines_of(widget)[-1].startswith("› hello")  # scrolled to the cursor


async def test_set_rows_keeps_the_session_under_the_cursor():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        widget.set_rows([ListRow(info(p)) for p in ("/a", "/b", "/c")])
        widget.set_cursor(1)
        widget.set_rows([ListRow(info(p)) for p in ("/c", "/x", "/b")])
        assert widget.selected is not None and widget.selected.path == "/b"
        widget.set_rows([ListRow(info(p)) for p in ("/c", "/x")])  # gone: the index stays, clamped
        assert widget.cursor == 1
        widget.set_rows([])
        assert widget.selected is None
        await pilot.pause()
        assert app.seen[-1] == ("highlighted", None)


async def test_empty_list_shows_its_message():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        widget.configure(message="  No sessions found")
        await pilot.pause()
        assert lines_of(widget)[0] == "  No sessions found"


async def test_hits_take_two_lines_and_ask_for_missing_snippets():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        with_snippet = SearchHit(
            info("/a", first="alpha"),
            0,
            snippet="…the [cache] key…",
            spans=[(5, 12)],
            field="message",
            role="assistant",
        )
        without = SearchHit(info("/b", first="beta"), 1)
        widget.set_rows([ListRow(h.info, "", h) for h in (with_snippet, without)], two_lines=True)
        await pilot.pause()
        await pilot.pause()
        shown = lines_of(widget)
        assert shown[0].startswith("› alpha")
        assert shown[1] == "    assistant: …the [cache] key…"  # brackets are text
        assert shown[2].startswith("  beta") and shown[3] == ""
        await pilot.pause()
        assert ("snippets", 1) in app.seen


async def test_a_scattered_fuzzy_match_starting_in_the_id_says_so():
    app = ListApp()
    async with app.run_test(size=(90, 8)) as pilot:
        widget = app.query_one(SessionList)
        scattered = SearchHit(info("/a", first="alpha"), 0, snippet="019cfc16-da82", spans=[(9, 10)], field="id")
        by_id = SearchHit(info("/b", first="beta"), 0, snippet="019cfc16-da82", spans=[(0, 8)], field="id")
        widget.set_rows([ListRow(h.info, "", h) for h in (scattered, by_id)], two_lines=True)
        await pilot.pause()
        shown = lines_of(widget)
        assert shown[1] == "    fuzzy match: the letters are far apart"
        assert shown[3] == "    id: 019cfc16-da82"


async def test_click_selects_and_double_click_chooses():
    app = ListApp()
    async with app.run_test(size=(60, 8)) as pilot:
        widget = app.query_one(SessionList)
        widget.set_rows([ListRow(info(p)) for p in ("/a", "/b", "/c")])
        await pilot.click(SessionList, offset=(3, 2))
        assert widget.cursor == 2
        await pilot.click(SessionList, offset=(3, 1), times=2)
        await pilot.pause()
        assert ("chosen", "/b") in app.seen
        widget.locked = True
        await pilot.click(SessionList, offset=(3, 0))
        assert widget.cursor == 1


async def test_thousands_of_rows_render_only_what_is_seen():
    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        widget = app.query_one(SessionList)
        widget.set_rows([ListRow(info(f"/{i}", first=f"session {i}")) for i in range(5000)])
        widget.set_cursor(4321)
        await pilot.pause()
        assert any(line.startswith("› session 4321") for line in lines_of(widget))
        assert len(widget._lines) <= 2 * widget.scrollable_content_region.height


async def test_the_scrollbar_is_drawn_again_only_when_its_thumb_moves(monkeypatch):
    # A search keystroke changes the count of rows; over thousands of them the thumb seldom moves.
    from textual.scrollbar import ScrollBar

    app = ListApp()
    async with app.run_test(size=(80, 24)) as pilot:
        widget = app.query_one(SessionList)
        widget.set_rows([ListRow(info(f"/{i}", first=f"session {i}")) for i in range(2000)])
        await pilot.pause()
        bar = widget.vertical_scrollbar
        drawn: list[int] = []
        refresh = ScrollBar.refresh

        def counted(self: ScrollBar, *args: Any, **kwargs: Any) -> Any:
            drawn.append(self.window_virtual_size)
            return refresh(self, *args, **kwargs)

        monkeypatch.setattr(ScrollBar, "refresh", counted)
        widget.set_rows([ListRow(info(f"/{i}", first=f"session {i}")) for i in range(1900)])
        await pilot.pause()
        assert drawn == [] and bar.window_virtual_size == 1900  # the same one-cell thumb at the top
        widget.set_rows([ListRow(info(f"/{i}", first=f"session {i}")) for i in range(40)])
        await pilot.pause()
        assert drawn and bar.window_virtual_size == 40  # a thumb half the bar: drawn again
        assert widget.max_scroll_y == 40 - widget.scrollable_content_region.height
