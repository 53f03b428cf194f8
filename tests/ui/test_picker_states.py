"""The picker while it loads, when there is nothing or something bad to show, and while the files
change on disk."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.apps import (
    demo_app,
    header_lines,
    listing,
    opened,
    picker,
    picker_app,
    row_lines,
    selected_title,
    titles,
)
from helpers.cache_lock import ui_thread_asks_for_the_lock
from helpers.pilot import screen_lines, screen_text, settle, type_text, until
from helpers.sessions import CWD, KIT_NOW, family, kit_folder, session

from devkit.builder import header, lines, msg
from pitui.store.catalog import Catalog
from pitui.store.catalog import catalog as catalog_module
from pitui.ui.screens.picker import PickerScreen
from pitui.ui.screens.picker_listing import PickerListing

# -- building apps and looking at the screen: tests/helpers (apps, pilot, sessions) ------------------


# -- loading, empty states, bad input --------------------------------------------------------------


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path, so that a whole path under it fits one row, however deep
    pytest's own temporary folder is (a parallel run nests it one level deeper)."""
    folder = Path(tempfile.mkdtemp(prefix="pitui-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_empty_states(short_tmp):
    agent, _ = kit_folder(short_tmp)
    app = picker_app(agent, CWD, short_tmp, now=KIT_NOW)
    async with app.run_test(size=(99, 20)) as pilot:  # no preview: the whole width for the list
        await settle(pilot)
        assert row_lines(app)[0] == "  No sessions in current folder. Press tab to view all."
        assert " ".join(line.strip() for line in row_lines(app)[1:]) == f"Looked in {agent}/sessions/--home-me-proj--"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert row_lines(app) == [
            "  No named sessions in current folder. Press ctrl+n to show all, or tab to view all."
        ]
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

    def slow(
        self: Catalog, cwd: str, session_dir: str | None = None, on_progress: Any = None, on_listed: Any = None
    ) -> Any:
        if on_progress:
            on_progress(2, 6)
        release.wait(30)
        return real(self, cwd, session_dir, on_progress, on_listed)

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


async def test_rows_show_before_the_cache_is_written(tmp_path, monkeypatch):
    """A cold listing's rows are on screen, and no longer "Loading", while its results are
    still being written to the cache; the search's texts are made once they are in it."""
    agent, folder = kit_folder(tmp_path)
    family(folder)
    written = threading.Event()
    release = threading.Event()
    real = catalog_module.store_outcomes

    def held(*args: Any) -> None:
        release.wait(30)
        real(*args)
        written.set()

    monkeypatch.setattr(catalog_module, "store_outcomes", held)
    prepared: list[int] = []
    real_prepare = Catalog.prepare_search
    monkeypatch.setattr(
        Catalog,
        "prepare_search",
        lambda self, infos, **kw: prepared.append(len(infos)) or real_prepare(self, infos, **kw),
    )
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    async with app.run_test(size=(100, 20)) as pilot:
        await until(pilot, lambda: len(listing(app).rows) == 5)
        assert "Loading" not in screen_text(app)
        assert not written.is_set() and prepared == []
        release.set()
        await until(pilot, lambda: prepared == [5])
    assert written.is_set()
    cached = Catalog(str(agent), cache_dir=str(tmp_path / "cache")).cached_list(CWD)
    assert len(cached) == 5


async def test_rows_are_handed_over_while_the_ui_thread_waits_for_the_cache(tmp_path, monkeypatch):
    """A cold listing hands its rows to the screen while it holds the cache's lock (its writes
    come after): it must not wait for the UI thread, which may be waiting for that lock (the
    app closes the cache as it quits). Here the UI thread asks for the lock at that moment: it
    gets it once the listing is done, and the rows show."""
    agent, folder = kit_folder(tmp_path)
    family(folder)
    loop = asyncio.get_running_loop()
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    took: list[bool] = []
    real_resolve = PickerListing.resolve

    def resolve(self: PickerListing, infos: Any) -> Any:
        ui_thread_asks_for_the_lock(app.catalog, loop, took)
        return real_resolve(self, infos)

    monkeypatch.setattr(PickerListing, "resolve", resolve)
    async with app.run_test(size=(100, 20)) as pilot:
        await until(pilot, lambda: len(listing(app).rows) == 5)
        assert took == [True]
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
        await until(
            pilot, lambda: any(row.info.message_count == 2 and row.path == str(paths["b"]) for row in listing(app).rows)
        )
        assert selected_title(app) == "Recursive descent"

        # goes away
        paths["lone"].unlink()
        await until(pilot, lambda: "Unrelated: fix the CI cache" not in titles(app))
        assert selected_title(app) == "Recursive descent"
        assert len(listing(app).rows) == 5


async def test_a_session_written_before_the_watcher_is_up_is_listed(tmp_path, monkeypatch):
    # The watcher starts after the first listing is drawn; a session pi writes in between is
    # not an event it sees, and must still appear (the picker lists again once it watches).
    agent, folder = kit_folder(tmp_path)
    family(folder)
    follow = PickerScreen._follow_disk
    written: list[Path] = []

    def write_then_follow(screen: PickerScreen) -> None:
        if not written:
            written.append(session(folder, "between", "Written while the watcher was starting", n=100))
        follow(screen)

    monkeypatch.setattr(PickerScreen, "_follow_disk", write_then_follow)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW, watch=True)
    async with app.run_test(size=(100, 24)) as pilot:
        await until(pilot, lambda: "Written while the watcher was starting" in titles(app))
        assert written and len(listing(app).rows) == 6


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
    from pitui.store.paths import real_path_cached

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
    names = [
        "lnk/sub/f.jsonl",
        "lnk/rel.jsonl",
        "abs.jsonl",
        "chain.jsonl",
        "lnk/sub/up.jsonl",
        "real/sub/../sub/f.jsonl",
        "lnk/",
        "loop1",
        "dangling",
        "nope",
        "real//sub/f.jsonl",
    ]
    folders: dict[str, str] = {}
    for path in [str(tmp_path / name) for name in names] + ["relative/x.jsonl"]:
        try:
            expected = os.path.realpath(path, strict=True)
        except OSError as error:
            expected = type(error).__name__
        try:
            got = real_path_cached(path, folders)
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


async def test_the_listing_is_kept_out_of_collections_until_the_next_listing(tmp_path, monkeypatch):
    # Every few keystrokes a full collection would walk the whole listing again (45 ms at 2,000
    # sessions, between a key and its rows): once the listing's texts are made it is frozen,
    # after a collection; the next listing gives it back first.
    import gc

    from pitui.store import tuning

    calls: list[str] = []
    freeze, thaw = tuning.freeze_heap, tuning.thaw_heap

    def frozen(*, collect: bool = False) -> None:
        freeze(collect=collect)
        calls.append("freeze, collected" if collect else "freeze")

    def thawed() -> None:
        thaw()
        calls.append("thaw")

    monkeypatch.setattr(tuning, "freeze_heap", frozen)
    monkeypatch.setattr(tuning, "thaw_heap", thawed)
    agent, folder = kit_folder(tmp_path)
    family(folder)
    app = picker_app(agent, CWD, tmp_path, now=KIT_NOW)
    try:
        async with app.run_test(size=(100, 24)) as pilot:
            await until(pilot, lambda: "freeze, collected" in calls)
            assert calls == ["thaw", "freeze, collected"]
            assert gc.get_freeze_count() > 0
            info = listing(app).rows[0].info
            assert all(info is not o for o in gc.get_objects())  # not walked by collections
            session(folder, "newer", "Another session", n=100)
            picker(app)._request_load("current")
            await until(pilot, lambda: len(listing(app).rows) == 6 and calls.count("freeze, collected") == 2)
            assert calls == ["thaw", "freeze, collected", "thaw", "freeze, collected"]
            # Under a session view the heap is the view's: a listing then leaves it alone (a
            # collection would walk the view's session).
            await pilot.press("enter")
            await opened(pilot)
            calls.clear()
            session(folder, "newest", "One more session", n=110)
            picker(app)._request_load("current")
            await until(pilot, lambda: len(listing(app).rows) == 7)
            await app.workers.wait_for_complete()
            assert calls == []
    finally:
        thaw()
