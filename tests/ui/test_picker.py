"""The session picker, driven as a user drives it: keys, clicks, what the screen shows and what
the files hold afterwards."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.apps import (
    demo_app,
    header_lines,
    listing,
    picker,
    picker_app,
    row_lines,
    selected_title,
    titles,
)
from helpers.pilot import screen_lines, screen_text, settle, type_text
from helpers.sessions import CWD, KIT_NOW, family, kit_folder, path_name, session
from textual.widgets import Input

from pitui.config import Config
from pitui.store.catalog import Catalog
from pitui.ui.app import PituiApp
from pitui.ui.screens.help import key_rows
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.widgets.session_list import SessionList

# -- building apps and looking at the screen: tests/helpers (apps, pilot, sessions) ------------------


# -- rows, header, hints ---------------------------------------------------------------------------


async def test_current_folder_rows_header_and_hints(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        first, hint1, hint2 = header_lines(app)
        assert first.startswith(" Resume Session (Current Folder)")
        assert first.endswith("◉ Current Folder | ○ All  Name: All  Sort: Threaded")
        assert hint1.strip() == (
            "enter open · escape quit · tab scope · ctrl+s sort · ctrl+n named · "
            "ctrl+p path (off) · ctrl+r rename · ctrl+d delete"
        )
        assert hint2.strip() == "ctrl+o resume in pi · ctrl+f find entries · ctrl+g usage"
        assert ' > type to search: words, "exact phrase", re:regex' in screen_lines(app)
        assert screen_lines(app)[-1].endswith("f1 keys · f2 commands · ctrl+q quit")
        rows = row_lines(app)
        assert rows[0].startswith("› I want a `--units imperial` option")
        assert rows[0].endswith(" 79 2d")  # pi counts the system message (pi-1.6.md B15)
        assert rows[1].startswith("  Cache never expires after reboot") and rows[1].endswith(" 35 4d")
        assert rows[2].startswith("     └─ Cache: clear command and --no-cache") and rows[2].endswith(" 50 4d")
        assert len(rows) == 3
        assert "(1/3)" in screen_lines(app)[-1]
        assert "> " in screen_text(app)


async def test_age_and_count_formats(tmp_path):
    agent, folder = kit_folder(tmp_path)
    minute = 60_000
    base = 1735689600000
    ages = {
        "now": 30_000,
        "5m": 5 * minute,
        "3h": 3 * 60 * minute,
        "2d": 2 * 1440 * minute,
        "1w": 8 * 1440 * minute,
        "2mo": 65 * 1440 * minute,
        "1y": 400 * 1440 * minute,
    }
    for n, (label, ago) in enumerate(ages.items()):
        session(folder, f"s{n}", f"age {label}", n=0)
        path = folder / f"s{n}.jsonl"
        head, rest = path.read_text().split("\n", 1)
        # Made a year before: the age is that of the last message (a fork made now would be "now").
        path.write_text(head.replace("2025-01-01", "2024-01-01") + "\n" + rest.replace(str(base), str(int(base - ago))))
    app = picker_app(agent, CWD, tmp_path, now=base)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        shown = {line.split()[-3]: line.split()[-1] for line in row_lines(app)}  # "age <label> 1 <age>"
        assert shown == {label: label for label in ages}


async def test_title_is_cut_with_an_ellipsis_and_control_characters_are_spaces(tmp_path):
    agent, folder = kit_folder(tmp_path)
    session(folder, "long", "first line\nsecond\tline " + "word " * 60)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        (row,) = row_lines(app)
        assert row.startswith("› first line second line word")
        assert "… " in row and row.endswith(" 1 3h")


async def test_session_text_is_shown_as_text_never_markup_or_escapes(tmp_path):
    agent, folder = kit_folder(tmp_path)
    session(
        folder, "evil", "[bold red]not bold[/] \x1b[31mred\x1b[0m \u202eevil", title="[link=x]name[/link] \x1b]0;t\x07"
    )
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "[link=x]name[/link]" in text
        assert "[bold red]not bold[/]" in text  # the preview's first prompt
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text


# -- scopes ----------------------------------------------------------------------------------------


async def test_tab_switches_scope_lists_all_once_and_shows_cwd(tmp_path, monkeypatch):
    app = demo_app(tmp_path)
    calls = []
    real = Catalog.list_all

    def counting(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "list_all", counting)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        assert calls == []  # lazily: only when asked for
        await pilot.press("tab")
        await settle(pilot)
        first = header_lines(app)[0]
        assert first.startswith(" Resume Session (All)")
        assert "○ Current Folder | ◉ All" in first
        assert len(listing(app).rows) == 6
        assert all(
            line.endswith(("shortlinks", "weatherapp"), 0, line.rindex(" ", 0, line.rindex(" ")))
            for line in row_lines(app)
        )  # the cwd before count and age
        await pilot.press("tab")
        await settle(pilot)
        assert header_lines(app)[0].startswith(" Resume Session (Current Folder)")
        assert len(listing(app).rows) == 3
        await pilot.press("tab")
        await settle(pilot)
        assert len(listing(app).rows) == 6
        assert calls == [1]  # cached for the life of the picker


async def test_start_in_all_scope(tmp_path):
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert header_lines(app)[0].startswith(" Resume Session (All)")
        assert len(listing(app).rows) == 6


# -- sorting and filtering -------------------------------------------------------------------------


async def test_threaded_order_with_forks(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        lines_ = [line[:48].rstrip() for line in row_lines(app)]
        assert lines_ == [
            "› Plan the parser",
            "     ├─ Try a table-driven parser",
            "     │  └─ Table parser, second attempt",
            "     └─ Recursive descent",
            "  Unrelated: fix the CI cache",
        ]


async def test_ctrl_s_cycles_threaded_recent_fuzzy(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Recent")
        assert titles(app) == [
            "Plan the parser",
            "Table parser, second attempt",
            "Try a table-driven parser",
            "Recursive descent",
            "Unrelated: fix the CI cache",
        ]
        assert not any("─" in line for line in row_lines(app))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Fuzzy")
        assert titles(app)[1] == "Table parser, second attempt"  # no query: the listing's order
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Threaded")
        assert titles(app)[0] == "Plan the parser"


def named_only(app: PituiApp, on: bool) -> bool:
    if on:
        return "Name: Named" in header_lines(app)[0] and titles(app) == [
            "Cache never expires after reboot",
            "Cache: clear command and --no-cache",
        ]
    return "Name: All" in header_lines(app)[0] and len(titles(app)) == 3


def file_paths(app: PituiApp, on: bool) -> bool:
    hints = " ".join(header_lines(app)[1:])
    if on:
        return "ctrl+p path (on)" in hints and all(".jsonl " in line for line in row_lines(app))
    return "ctrl+p path (off)" in hints and not any(".jsonl" in line for line in row_lines(app))


@pytest.mark.parametrize(
    ("key", "width", "shown"),
    [
        pytest.param("ctrl+n", 120, named_only, id="ctrl-n-named-sessions-only"),
        pytest.param("ctrl+p", 160, file_paths, id="ctrl-p-file-paths"),
    ],
)
async def test_a_toggle_key_turns_its_view_on_then_off(tmp_path, key, width, shown):
    app = demo_app(tmp_path)
    async with app.run_test(size=(width, 36)) as pilot:
        await settle(pilot)
        for on in (True, False):
            await pilot.press(key)
            await settle(pilot)
            assert shown(app, on), f"{key} {'on' if on else 'off'}: {header_lines(app)}"


# -- search ----------------------------------------------------------------------------------------


async def test_search_fuzzy_shows_hits_with_snippets(tmp_path):
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_text(pilot, "gunicorn")
        assert titles(app)[0].startswith("Add a Dockerfile")
        rows = row_lines(app)
        assert "gunicorn" in rows[1].lower()  # the second line: the text around the match
        assert rows[1].startswith("    ")


async def test_a_query_longer_than_the_box_scrolls_to_what_is_typed(tmp_path):
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "gunicorn")
        prompt = next(line.strip() for line in screen_lines(app) if line.lstrip().startswith("> "))
        assert prompt == "> gunicorn"
        words = " ".join(f"w{n:02d}" for n in range(20))  # 79 characters: wider than the box
        await type_text(pilot, " " + words)
        prompt = next(line.strip() for line in screen_lines(app) if line.lstrip().startswith("> "))
        assert prompt.endswith("w18 w19")  # the end of the text, where the cursor is
        assert "gunicorn" not in prompt
        await pilot.press("home")
        await settle(pilot)
        prompt = next(line.strip() for line in screen_lines(app) if line.lstrip().startswith("> "))
        assert prompt.startswith("> gunicorn w00")


async def test_search_phrase_and_regex(tmp_path):
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_text(pilot, '"no-cache"')
        assert [path_name(row.path) for row in listing(app).rows] == ["019cf5fc", "019cfc16"]
        assert "--no-cache" in row_lines(app)[1]
        await pilot.press("escape")
        await settle(pilot)
        await type_text(pilot, "re:slug[s]? ")
        assert titles(app) == ["Non-ASCII slugs → 400"]


async def test_snippets_past_the_first_are_made_when_shown(tmp_path, monkeypatch):
    monkeypatch.setattr(PickerScreen, "SNIPPETS", 1)
    app = demo_app(tmp_path, scope="all")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_text(pilot, '"cache"')
        await settle(pilot)
        hits = [row.hit for row in listing(app).rows]
        assert len(hits) > 2
        assert all(hit is not None and hit.snippet for hit in hits)
        assert all(line.strip() for line in row_lines(app)[: 2 * len(hits)])


async def test_bad_regex_says_why(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_text(pilot, "re:(unclosed")
        assert listing(app).rows == []
        assert "Invalid regular expression" in screen_text(app)
        await pilot.press("backspace", *["backspace"] * 11)
        await settle(pilot)
        assert "Invalid regular expression" not in screen_text(app)


async def test_escape_clears_the_search_then_quits(tmp_path, monkeypatch):
    app = demo_app(tmp_path)
    exits = []
    monkeypatch.setattr(app, "exit", lambda *a, **k: exits.append(a))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await type_text(pilot, "reboot")
        assert titles(app)[0] == "Cache never expires after reboot"
        assert listing(app).line_height == 2  # hits, each with its snippet
        await pilot.press("escape")
        await settle(pilot)
        assert picker(app).query_one("#picker-query", Input).value == ""
        assert listing(app).line_height == 1
        assert titles(app)[0].startswith("I want a `--units imperial`")
        assert exits == []
        await pilot.press("escape")
        await settle(pilot)
        assert exits == [()]


# -- moving and choosing ---------------------------------------------------------------------------


async def test_up_down_page_keys_clamp(tmp_path):
    agent, folder = kit_folder(tmp_path)
    for i in range(40):
        session(folder, f"s{i:02d}", f"session number {i:02d}", n=i)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        widget = listing(app)
        assert selected_title(app) == "session number 39"
        await pilot.press("up")
        assert widget.cursor == 0
        await pilot.press("down", "down")
        assert widget.cursor == 2
        page = widget.page_rows
        await pilot.press("pagedown")
        assert widget.cursor == 2 + page
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")
        assert widget.cursor == 39
        await pilot.press("down")
        assert widget.cursor == 39
        assert "(40/40)" in screen_lines(app)[-1]
        assert any("session number 00" in line for line in row_lines(app))  # scrolled into view
        await pilot.press("pageup")
        assert widget.cursor == 39 - page
        await pilot.press("pageup", "pageup", "pageup", "pageup")
        assert widget.cursor == 0


async def test_enter_opens_and_ctrl_o_resumes_in_pi(tmp_path, monkeypatch):
    app = demo_app(tmp_path)
    chosen: list[str] = []
    resumed: list[str] = []
    monkeypatch.setattr(app, "choose_session", chosen.append)
    monkeypatch.setattr(app, "resume_in_pi", lambda path, cwd: resumed.append(path))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("down", "enter")
        assert chosen == [listing(app).rows[1].path]
        await type_text(pilot, "reboot")
        await pilot.press("enter")
        assert chosen[-1].endswith("019cf5ce-80f7-794c-8c76-db8cd8dcb35f.jsonl")
        await pilot.press("ctrl+o")
        assert resumed == [chosen[-1]]


async def test_print_mode_ends_with_the_chosen_path(tmp_path):
    app = demo_app(tmp_path, print_mode=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        path = listing(app).rows[0].path
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value is not None and app.return_value.path == path


async def test_click_selects_and_double_click_opens(tmp_path, monkeypatch):
    app = demo_app(tmp_path)
    chosen: list[str] = []
    monkeypatch.setattr(app, "choose_session", chosen.append)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.click(SessionList, offset=(5, 2))
        await settle(pilot)
        assert selected_title(app) == "Cache: clear command and --no-cache"
        assert chosen == []
        await pilot.click(SessionList, offset=(5, 1), times=2)
        await settle(pilot)
        assert chosen == [listing(app).rows[1].path]


async def test_selection_follows_the_session_across_changes(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")
        assert selected_title(app) == "Table parser, second attempt"
        await pilot.press("ctrl+s")  # recent: it moves up, the cursor with it
        await settle(pilot)
        assert listing(app).cursor == 1 and selected_title(app) == "Table parser, second attempt"
        await pilot.press("up")
        assert selected_title(app) == "Plan the parser"
        await type_text(pilot, "second")  # a new query: the best match
        assert listing(app).cursor == 0 and selected_title(app) == "Table parser, second attempt"
        await pilot.press("ctrl+s", "ctrl+s")  # fuzzy, then threaded: still there
        await settle(pilot)
        assert selected_title(app) == "Table parser, second attempt"
        await pilot.press("escape")  # back to every session, on the one found
        await settle(pilot)
        assert listing(app).cursor == 2 and selected_title(app) == "Table parser, second attempt"
        await pilot.press("ctrl+n")  # not named: gone; the cursor stays where it was, clamped
        await settle(pilot)
        assert titles(app) == ["Recursive descent"]
        assert selected_title(app) == "Recursive descent"


# -- keys: help, keymap, palette -------------------------------------------------------------------


async def test_every_picker_key_has_an_id_and_is_listed_in_help(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        ids = {row.binding_id for row in key_rows(picker(app))}
        assert {
            "picker.up",
            "picker.down",
            "picker.page_up",
            "picker.page_down",
            "picker.open",
            "picker.cancel",
            "picker.scope",
            "picker.sort",
            "picker.named",
            "picker.path",
            "picker.rename",
            "picker.delete",
            "picker.delete_noninvasive",
            "picker.resume",
        } <= ids
        await pilot.press("f1")
        await settle(pilot)
        assert "picker.delete" in screen_text(app)


async def test_a_rebound_key_works_and_the_hints_say_so(tmp_path):
    app = demo_app(tmp_path, config=Config(keys={"picker.delete": "ctrl+x", "picker.sort": "f5,ctrl+s"}))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        hints = " ".join(header_lines(app)[1:])
        assert "f5/ctrl+s sort" in hints and "ctrl+x delete" in hints
        await pilot.press("f5")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Recent")
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert "Delete session?" in header_lines(app)[1]


async def test_command_palette_runs_picker_actions(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        await type_text(pilot, "toggle paths")
        await pilot.press("enter")
        await settle(pilot)
        assert "ctrl+p path (on)" in " ".join(header_lines(app)[1:])
