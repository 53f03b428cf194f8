"""The search keystroke of the picker benchmark, timed headless in a child process
(``picker_bench.py --search-child``): pitui's picker over every session, the full-text index built,
then single characters typed into the search box."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Callable

# How the full-text index is there when the keys are typed: "app" waits for the app's own
# background indexer (what users get), "bench" builds it here in one go, "none" keeps the app's
# indexer from starting (searching then reads every session's text, as before the app built it).
INDEX_MODES = ("app", "bench", "none")


def search_child(
    keystrokes: int,
    query: str,
    size: tuple[int, int],
    expect: int,
    target_ms: float,
    index: str = "app",
    profile: str | None = None,
) -> int:
    import json

    print(json.dumps(asyncio.run(_search_keystrokes(keystrokes, query, size, expect, target_ms, index, profile))))
    return 0


async def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"waited {timeout:.0f}s for {what}")
        await asyncio.sleep(0.001)


async def _search_keystrokes(
    keystrokes: int, query: str, size: tuple[int, int], expect: int, target_ms: float, index: str, profile: str | None
) -> dict:
    """One keystroke = from the key event handed to the app (as the terminal driver hands it)
    until the first frame drawn after the list got its new rows.

    Frames are the screen updates Textual composes (``App._display``, called for every update
    even headless, where it then writes nothing): each is timestamped with the list's rows
    object at that moment. ``SessionList.set_rows`` makes a new rows object, so the first
    frame showing a new object is the redraw with the filtered rows. The picker's own parts
    are timed too: ``Catalog.search`` (in the search worker) and the debounce before it, if the
    picker has one (``SEARCH_DELAY_S``; 0 without). ``profile``: a file for a cProfile of the UI
    thread from each timed key to its frame (``pstats`` reads it).
    """
    import cProfile

    from textual import events

    from pitui.store.catalog import index as catalog_index
    from pitui.ui.app import PituiApp
    from pitui.ui.screens.picker import PickerScreen
    from pitui.ui.widgets.picker_header import PickerHeader

    app = PituiApp(cwd=os.getcwd(), scope="all", watch=False)
    frames: list[tuple[float, object, float]] = []  # (when, the list's rows, UI thread's CPU)
    searches: list[float] = []
    search_cpu: list[float] = []
    out: dict = {"query": query, "size": f"{size[0]}x{size[1]}", "index": index}
    if index == "none":
        catalog_index.BackgroundIndex.start = lambda self: None  # type: ignore[method-assign]
    async with app.run_test(size=size) as pilot:
        started = time.perf_counter()
        await _until(lambda: isinstance(app.screen, PickerScreen), 30, "the picker")
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        listing = picker.session_list
        header = picker.query_one(PickerHeader)

        def listed() -> bool:
            # Every row on screen and the listing over: its results written to the cache (the
            # rows are drawn before that), which is when the app starts its full-text index.
            if header.status is not None and header.status[1]:
                raise RuntimeError(f"the picker says: {header.status[0]}")
            return len(listing.rows) == expect and not header.listing and not picker.listing.states["all"].loading

        await _until(listed, 300, f"{expect} rows listed")
        out["listed_s"] = round(time.perf_counter() - started, 3)
        t = time.perf_counter()
        catalog = app.catalog
        if index == "bench":
            await asyncio.to_thread(catalog.build_index)
        elif index == "app":
            indexer = catalog.indexer
            await _until(lambda: indexer is None or not indexer.running, 600, "the app's index")
        out["index_s"] = round(time.perf_counter() - t, 3)  # after the listing
        # (in a thread: the cache's lock may be held by a worker, and this is the UI thread)
        out["unindexed_sessions"] = await asyncio.to_thread(catalog.pending_index)
        out["debounce_ms"] = round(getattr(PickerScreen, "SEARCH_DELAY_S", 0) * 1000, 1)

        display = app._display

        def frame(screen: object, renderable: object) -> None:
            if renderable is not None:
                frames.append((time.perf_counter(), listing.rows, time.thread_time()))
            display(screen, renderable)  # type: ignore[arg-type]

        app._display = frame  # type: ignore[method-assign]
        search = catalog.search

        def timed_search(*args: object, **kwargs: object) -> object:
            t, cpu = time.perf_counter(), time.thread_time()
            try:
                return search(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                searches.append(time.perf_counter() - t)
                search_cpu.append(time.thread_time() - cpu)

        catalog.search = timed_search  # type: ignore[method-assign]

        async def settle() -> None:
            # Let the snippet workers and the preview finish, so that keystrokes do not overlap.
            await pilot.pause(0.25)
            await app.workers.wait_for_complete()
            await pilot.pause(0.05)

        async def new_rows(before: object, start: float, start_cpu: float) -> float:
            def drawn() -> bool:
                return any(rows is not before and t >= start for t, rows, _ in frames)

            await _until(drawn, 30, "the filtered rows")
            t, _, cpu = next(frame for frame in frames if frame[1] is not before and frame[0] >= start)
            ui_cpu.append(cpu - start_cpu)
            return t - start

        profiler = cProfile.Profile() if profile else None
        latencies: list[float] = []
        ui_cpu: list[float] = []  # the UI thread's CPU seconds from the key to the rows' frame
        counts: list[int] = []
        while len(latencies) < keystrokes:
            picker.search_box.value = ""
            await settle()
            for char in query:
                if len(latencies) >= keystrokes:
                    break
                before = listing.rows
                frames.clear()
                key = "space" if char == " " else char
                if profiler is not None:
                    profiler.enable()
                start, start_cpu = time.perf_counter(), time.thread_time()
                app._driver.send_message(events.Key(key, char))  # type: ignore[union-attr]
                latencies.append(await new_rows(before, start, start_cpu))
                if profiler is not None:
                    profiler.disable()
                counts.append(len(listing.rows))
                await settle()
        if profiler is not None:
            profiler.dump_stats(profile)
        app._display = display  # type: ignore[method-assign]
        catalog.search = search  # type: ignore[method-assign]
    # The first key after start has no earlier query to start from (and, where the picker has
    # not read the texts ahead, reads them): apart.
    first_ms = latencies[0] * 1000
    ms = sorted(x * 1000 for x in latencies[1:]) or [first_ms]
    out.update(
        {
            "keystrokes": len(latencies),
            "first_ms": round(first_ms, 1),
            "median_ms": round(statistics.median(ms), 1),
            "p90_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.9))], 1),
            "max_ms": round(ms[-1], 1),
            "target_ms": target_ms,
            "ok": statistics.median(ms) <= target_ms,
            "catalog_search_median_ms": round(statistics.median(searches) * 1000, 1) if searches else None,
            # CPU, less disturbed by other work on the machine than the wall times above.
            "catalog_search_cpu_median_ms": round(statistics.median(search_cpu) * 1000, 1) if search_cpu else None,
            "ui_cpu_median_ms": round(statistics.median(ui_cpu[1:] or ui_cpu) * 1000, 1) if ui_cpu else None,
            "ui_cpu_p90_ms": _p90_ms(ui_cpu[1:] or ui_cpu),
            "runs_ms": [round(x * 1000, 1) for x in latencies],
            "rows": counts,
        }
    )
    return out


def _p90_ms(values: list[float]) -> float | None:
    if not values:
        return None
    ms = sorted(x * 1000 for x in values)
    return round(ms[min(len(ms) - 1, int(len(ms) * 0.9))], 1)
