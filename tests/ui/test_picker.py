"""The session picker, driven as a user drives it: keys, clicks, what the screen shows and what
the files hold afterwards."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
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
from helpers.pilot import screen_lines, screen_text, settle, type_text, until
from helpers.sessions import CWD, KIT_NOW, family, kit_folder, session
from helpers.trash import trash_dir
from textual.widgets import Input

from devkit.builder import header, lines, msg
from pitui.config import Config
from pitui.store.catalog.catalog import Catalog
from pitui.ui.screens.dialogs import RenameScreen
from pitui.ui.screens.help import key_rows
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.widgets.session_list import SessionList

# -- building apps and looking at the screen: tests/helpers (apps, pilot, sessions) ------------------


def path_name(path: str) -> str:
    """The first part of a demo session's id, from its file name."""
    return Path(path).stem.split("_")[1][:8]


def file_bytes(paths: Iterable[Path]) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in paths}


# -- rows, header, hints ---------------------------------------------------------------------------


async def test_current_folder_rows_header_and_hints(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        first, hint1, hint2 = header_lines(app)
        assert first.startswith(" Resume Session (Current Folder)")
        assert first.endswith("◉ Current Folder | ○ All  Name: All  Sort: Threaded")
        assert hint1.strip() == ("enter open · escape quit · tab scope · ctrl+s sort · ctrl+n named · "
                                 "ctrl+p path (off) · ctrl+r rename · ctrl+d delete")
        assert hint2.strip() == "ctrl+o resume in pi"
        assert ' > type to search: words, "exact phrase", re:regex' in screen_lines(app)
        assert screen_lines(app)[-1].endswith("f1 keys · f2 commands · ctrl+q quit")
        rows = row_lines(app)
        assert rows[0].startswith("› I want a `--units imperial` option")
        assert rows[0].endswith(" 78 2d")
        assert rows[1].startswith("  Cache never expires after reboot") and rows[1].endswith(" 34 4d")
        assert rows[2].startswith("     └─ Cache: clear command and --no-cache") and rows[2].endswith(" 49 4d")
        assert len(rows) == 3
        assert "(1/3)" in screen_lines(app)[-1]
        assert "> " in screen_text(app)


async def test_age_and_count_formats(tmp_path):
    agent, folder = kit_folder(tmp_path)
    minute = 60_000
    base = 1735689600000
    ages = {"now": 30_000, "5m": 5 * minute, "3h": 3 * 60 * minute, "2d": 2 * 1440 * minute,
            "1w": 8 * 1440 * minute, "2mo": 65 * 1440 * minute, "1y": 400 * 1440 * minute}
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
    session(folder, "evil", "[bold red]not bold[/] \x1b[31mred\x1b[0m \u202eevil",
            title="[link=x]name[/link] \x1b]0;t\x07")
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
        assert all(line.endswith(("shortlinks", "weatherapp"), 0, line.rindex(" ", 0, line.rindex(" ")))
                   for line in row_lines(app))  # the cwd before count and age
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
        assert titles(app) == ["Plan the parser", "Table parser, second attempt", "Try a table-driven parser",
                               "Recursive descent", "Unrelated: fix the CI cache"]
        assert not any("─" in line for line in row_lines(app))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Fuzzy")
        assert titles(app)[1] == "Table parser, second attempt"  # no query: the listing's order
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert header_lines(app)[0].endswith("Sort: Threaded")
        assert titles(app)[0] == "Plan the parser"


async def test_ctrl_n_shows_named_sessions_only(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert "Name: Named" in header_lines(app)[0]
        assert titles(app) == ["Cache never expires after reboot", "Cache: clear command and --no-cache"]
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert "Name: All" in header_lines(app)[0]
        assert len(titles(app)) == 3


async def test_ctrl_p_shows_file_paths(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(160, 36)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert "ctrl+p path (on)" in " ".join(header_lines(app)[1:])
        assert all(".jsonl " in line for line in row_lines(app))
        await pilot.press("ctrl+p")
        await settle(pilot)
        assert "ctrl+p path (off)" in " ".join(header_lines(app)[1:])
        assert not any(".jsonl" in line for line in row_lines(app))


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


# -- rename ----------------------------------------------------------------------------------------


async def test_rename_saves_a_name_pi_reads(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        assert selected_title(app) == "Recursive descent"
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert isinstance(app.screen, RenameScreen)
        box = app.screen.query_one(Input)
        assert box.value == "Recursive descent"  # prefilled with the current name
        assert "enter to save · escape/ctrl+c to cancel" in screen_text(app)
        box.value = ""
        await type_text(pilot, "Descent, final")
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, RenameScreen)
        assert selected_title(app) == "Descent, final"
        last = paths["b"].read_bytes().splitlines()[-1]
        assert b'"type":"session_info"' in last and b'"name":"Descent, final"' in last


async def test_rename_escape_and_empty_name_write_nothing(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    before = file_bytes(paths.values())
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        box = app.screen.query_one(Input)
        assert box.value == ""  # unnamed: empty, not the first message
        await type_text(pilot, "   ")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RenameScreen)  # an empty name does nothing
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
    assert file_bytes(paths.values()) == before


# -- delete ----------------------------------------------------------------------------------------


def trashed(name: str) -> tuple[Path, Path]:
    return trash_dir() / "files" / name, trash_dir() / "info" / f"{name}.trashinfo"


async def test_delete_asks_then_moves_the_file_to_the_trash(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    others = file_bytes(p for key, p in paths.items() if key != "lone")
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("up", *["down"] * 4)
        assert selected_title(app) == "Unrelated: fix the CI cache"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Delete session? enter confirm · escape/ctrl+c cancel"
        assert header_lines(app)[2].strip() == "Unrelated: fix the CI cache · lone.jsonl"  # what it moves
        await pilot.press("x", "up", "tab", "ctrl+s")  # ignored while the question is open
        await settle(pilot)
        assert picker(app).query_text == "" and selected_title(app) == "Unrelated: fix the CI cache"
        assert header_lines(app)[0].endswith("Sort: Threaded")
        await pilot.press("enter")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Session moved to trash"
        assert "Unrelated: fix the CI cache" not in titles(app)
        assert selected_title(app) == "Recursive descent"  # the row above moved under the cursor
    in_trash, info = trashed("lone.jsonl")
    assert not paths["lone"].exists()
    assert in_trash.read_bytes().startswith(b'{"type":"session"')
    assert f"Path={paths['lone']}" in info.read_text() or "Path=" in info.read_text()
    assert info.read_text().splitlines()[1].endswith("lone.jsonl")
    assert file_bytes(others) == others
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for k, p in paths.items() if k != "lone")


async def test_delete_cancelled_keeps_everything(tmp_path):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    before = file_bytes(paths.values())
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "parser")
        await pilot.press("ctrl+d")  # in the search box, Ctrl+D is still delete
        await settle(pilot)
        assert "Delete session?" in header_lines(app)[1]
        await pilot.press("escape")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
        assert picker(app).query_text == "parser"  # Escape answered the question only
        await pilot.press("ctrl+d")
        await settle(pilot)
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
    assert file_bytes(paths.values()) == before


async def test_ctrl_backspace_deletes_only_with_an_empty_query(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await type_text(pilot, "table")
        await pilot.press("ctrl+backspace")
        await settle(pilot)
        assert "Delete session?" not in screen_text(app)
        await pilot.press("ctrl+u")
        await settle(pilot)
        assert picker(app).query_text == ""
        await pilot.press("ctrl+backspace")
        await settle(pilot)
        assert "Delete session?" in header_lines(app)[1]


async def test_the_session_open_in_a_view_cannot_be_deleted(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    monkeypatch.setattr(app, "open_session_paths", lambda: {os.path.realpath(paths["root"])})
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert selected_title(app) == "Plan the parser"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert header_lines(app)[1].strip() == "Cannot delete the currently active session"
        await pilot.press("enter")  # no question was asked: Enter opens, nothing is deleted
    assert paths["root"].exists()


async def test_a_failed_trash_is_reported_and_the_file_stays(tmp_path, monkeypatch):
    from pitui.store.write import trash

    agent, folder = kit_folder(tmp_path)
    paths = family(folder)

    def refuse(path: str) -> None:
        raise trash.TrashError(f"{path}: cannot move it to the trash: read-only file system")

    monkeypatch.setattr("pitui.store.write.actions.move_to_trash", refuse)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(140, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+d", "enter")
        await settle(pilot)
        assert header_lines(app)[1].strip().startswith("Failed to delete: ")
        assert "read-only file system" in header_lines(app)[1]
    assert paths["root"].exists()


# -- loading, empty states, bad input --------------------------------------------------------------


async def test_empty_states(tmp_path):
    agent, _ = kit_folder(tmp_path)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(99, 20)) as pilot:  # no preview: the whole width for the list
        await settle(pilot)
        assert row_lines(app)[0] == "  No sessions in current folder. Press tab to view all."
        assert " ".join(line.strip() for line in row_lines(app)[1:]) == f"Looked in {agent}/sessions/--home-me-proj--"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert row_lines(app) == [
            "  No named sessions in current folder. Press ctrl+n to show all, or tab to view all."]
        await pilot.press("tab")
        await settle(pilot)
        assert row_lines(app) == ["  No named sessions found. Press ctrl+n to show all."]
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert row_lines(app) == ["  No sessions found", f"  Looked in {agent}/sessions"]


async def test_cached_rows_show_at_once_and_progress_while_listing(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    Catalog(str(agent), cache_dir=str(tmp_path / "cache")).list(CWD)  # an earlier run's cache
    session(folder, "new", "Made since the last run", n=90)
    release = threading.Event()
    real = Catalog.list

    def slow(self: Catalog, cwd: str, session_dir: str | None = None, on_progress: Any = None) -> Any:
        if on_progress:
            on_progress(2, 6)
        release.wait(30)
        return real(self, cwd, session_dir, on_progress)

    monkeypatch.setattr(Catalog, "list", slow)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        for _ in range(200):
            await pilot.pause(0.01)
            if len(listing(app).rows) == 5 and "Loading 2/6" in header_lines(app)[0]:
                break
        assert len(listing(app).rows) == 5  # the cached rows, before any file was read
        assert "○ Current Folder | Loading 2/6" in header_lines(app)[0]
        release.set()
        await settle(pilot)
        assert len(listing(app).rows) == 6
        assert "Made since the last run" in titles(app)
        assert "Loading" not in screen_text(app)


async def test_loading_says_so_instead_of_no_sessions(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    release = threading.Event()
    real = Catalog.list

    def slow(self: Catalog, *args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Catalog, "list", slow)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        for _ in range(100):
            await pilot.pause(0.01)
            if row_lines(app):
                break
        assert row_lines(app) == ["  Loading sessions…"]
        assert "Loading ..." in header_lines(app)[0]
        release.set()
        await settle(pilot)
        assert len(listing(app).rows) == 5


async def test_unreadable_and_foreign_files_are_counted_not_fatal(tmp_path):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    (folder / "foreign.jsonl").write_text('{"hello": "world"}\n')
    (folder / "garbage.jsonl").write_bytes(b"\x00\xff not json\n")
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "dir.jsonl").mkdir()
    (folder / "notes.txt").write_text("ignored")
    with (folder / "torn.jsonl").open("wb") as handle:
        handle.write(lines(header(cwd=CWD, id="torn"), msg("t1", None, "user", "a torn session")) + b'{"type":"mess')
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        assert "a torn session" in titles(app)
        assert len(listing(app).rows) == 6
        assert "4 files skipped" in screen_lines(app)[-1]
        await pilot.press("f2")
        await type_text(pilot, "skipped")
        await pilot.press("enter")
        await settle(pilot)
        (note,) = [n for n in app._notifications if n.title == "4 files skipped"]
        assert note.message.splitlines() == [
            "dir.jsonl: not a file",
            "empty.jsonl: not a session file: no line parses as JSON",
            "foreign.jsonl: not a session file: the first line is not a session header",
            "garbage.jsonl: not a session file: no line parses as JSON",
        ]


async def test_an_unreadable_folder_is_reported(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    family(folder)
    real = os.listdir

    def denied(path: Any) -> Any:
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(os, "listdir", denied)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await settle(pilot)
        assert row_lines(app)[0] == "  No sessions in current folder. Press tab to view all."
        assert "1 file skipped" in screen_lines(app)[-1]


async def test_a_file_that_vanishes_before_its_preview_is_a_message(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(120, 20)) as pilot:
        await settle(pilot)
        paths["lone"].unlink()
        await pilot.press(*["down"] * 4)
        await settle(pilot)
        assert selected_title(app) == "Unrelated: fix the CI cache"
        assert "The session file no longer exists." in screen_text(app)


# -- keys: help, keymap, palette -------------------------------------------------------------------


async def test_every_picker_key_has_an_id_and_is_listed_in_help(tmp_path):
    app = demo_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        ids = {row.binding_id for row in key_rows(picker(app))}
        assert {"picker.up", "picker.down", "picker.page_up", "picker.page_down", "picker.open", "picker.cancel",
                "picker.scope", "picker.sort", "picker.named", "picker.path", "picker.rename", "picker.delete",
                "picker.delete_noninvasive", "picker.resume"} <= ids
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


# -- live updates ----------------------------------------------------------------------------------


async def test_the_list_follows_the_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(PickerScreen, "WATCH_DEBOUNCE_MS", 50)
    agent, folder = kit_folder(tmp_path)
    paths = family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW, watch=True)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down", "down", "down")
        assert selected_title(app) == "Recursive descent"

        # appears
        newest = session(folder, "newest", "A session pi just started", n=100)
        # Touched until its event arrives: the first write may come before the watcher is ready.
        await until(pilot, lambda: "A session pi just started" in titles(app), poke=lambda: os.utime(newest))
        assert selected_title(app) == "Recursive descent"

        # grows: pi appends a message
        with paths["b"].open("ab") as handle:
            handle.write(lines(msg("grow0001", "fork0000", "user", "one more", n=200)))
        await until(pilot, lambda: any(row.info.message_count == 2 and row.path == str(paths["b"])
                                       for row in listing(app).rows))
        assert selected_title(app) == "Recursive descent"

        # goes away
        paths["lone"].unlink()
        await until(pilot, lambda: "Unrelated: fix the CI cache" not in titles(app))
        assert selected_title(app) == "Recursive descent"
        assert len(listing(app).rows) == 5


def test_no_watch_means_no_watcher(tmp_path):
    app = demo_app(tmp_path)
    assert app.watch_files is False


@pytest.mark.parametrize("width", [60, 80])
async def test_narrow_terminals_hide_the_preview(tmp_path, width):
    app = demo_app(tmp_path)
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        assert picker(app).query_one("#picker-preview").display is False
        assert row_lines(app)[0].startswith("› I want a")


def test_real_paths_equal_os_realpath(tmp_path):
    from pitui.ui.screens.picker import _real_path

    real = tmp_path / "real" / "sub"
    real.mkdir(parents=True)
    (real / "f.jsonl").write_text("")
    os.symlink(tmp_path / "real", tmp_path / "lnk")
    os.symlink("sub/f.jsonl", tmp_path / "real" / "rel.jsonl")
    os.symlink(real / "f.jsonl", tmp_path / "abs.jsonl")
    os.symlink(tmp_path / "lnk" / "rel.jsonl", tmp_path / "chain.jsonl")
    os.symlink("../sub/f.jsonl", real / "up.jsonl")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    os.symlink("missing", tmp_path / "dangling")
    names = ["lnk/sub/f.jsonl", "lnk/rel.jsonl", "abs.jsonl", "chain.jsonl", "lnk/sub/up.jsonl",
             "real/sub/../sub/f.jsonl", "lnk/", "loop1", "dangling", "nope", "real//sub/f.jsonl"]
    folders: dict[str, str] = {}
    for path in [str(tmp_path / name) for name in names] + ["relative/x.jsonl"]:
        try:
            expected = os.path.realpath(path, strict=True)
        except OSError as error:
            expected = type(error).__name__
        try:
            got = _real_path(path, folders)
        except OSError as error:
            got = type(error).__name__
        assert got == expected, path


async def test_a_listing_that_fails_says_why_and_stops_saying_loading(tmp_path, monkeypatch):
    agent, folder = kit_folder(tmp_path)
    family(folder)

    def broken(self, *args, **kwargs):
        raise OSError("input/output error")

    monkeypatch.setattr(Catalog, "list", broken)
    monkeypatch.setattr(Catalog, "cached_list", lambda self, *a, **k: None, raising=False)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(140, 24)) as pilot:
        await settle(pilot)
        lines = header_lines(app)
        assert "Failed to load sessions: OSError: input/output error" in lines[1]
        assert "Loading" not in lines[0]
        assert "◉ Current Folder" in lines[0]
