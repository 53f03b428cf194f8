"""The session view reopens a session read before from its index in the cache: the same first
screen, with the file read only where the index cannot vouch for it."""

from __future__ import annotations

from pathlib import Path

from helpers.apps import opened, view_app
from helpers.pilot import until
from helpers.view_disk import tree_lines, turns

from pitui.store.session_index import IndexCache, index_files
from pitui.ui.widgets.session_tree import SessionTree

SIZE = (100, 30)


async def first_screen(path: Path, tmp_path: Path, index: IndexCache) -> list[str]:
    app = view_app(path, tmp_path)
    app.session_index = index  # the cache folder of this test (the app's is the user's)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        # The index is written by the reading thread once the first screen is on its way.
        await until(pilot, lambda: all(w.is_finished for w in app.workers if w.group == "session-load"))
        return tree_lines(screen.query_one(SessionTree))


async def test_a_session_opened_before_shows_the_same_first_screen_from_its_index(tmp_path: Path) -> None:
    path = turns(tmp_path / "s.jsonl", 1500)  # about 1.2 MB: big enough to be indexed
    index = IndexCache(str(tmp_path / "index"), deferred=True)
    before = path.read_bytes()
    first = await first_screen(path, tmp_path, index)
    assert index.last == "miss"
    assert len(list(index_files(index.directory))) == 1  # written once the screen was on its way
    again = await first_screen(path, tmp_path, index)
    assert index.last == "hit"
    assert again == first and any("answer 1499" in line for line in first)
    assert path.read_bytes() == before
