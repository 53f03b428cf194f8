"""Benchmark of the conversation pane: a long path shown and scrolled, headless.

A script, not a test: it prints figures and never fails on them.

    python -m devkit.bench.conversation_bench [--messages 5000] [--size 120x40] [--steps 30]

It writes one linear session of about ``--messages`` messages (user turns, assistant messages
with thinking, text and tool calls, tool results of varied length, made by the benchmark's
SessionBuilder, ``devkit/bench/session_builder.py``) into a temporary folder, then measures, in a
headless app of ``--size``:

- ``Session.load`` of the file and ``context_items`` of its leaf (every body decoded once);
- ``show`` to the first painted frame, and one page-up key, through Textual's pilot (these
  include the pilot's own cost of a key press and a frame, printed beside them);
- the widget's work alone: each call followed by a full repaint of the screen, no pilot:
  ``show`` of the whole path, ``show`` again of the same path rebuilt from the file (what moving
  the tree's highlight costs), ``--steps`` page-ups from the end, home, ``--steps`` page-downs
  from the top (every step renders messages not seen before), end. Medians and maxima over
  ``--repeat`` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult

from devkit.bench.session_builder import SessionBuilder
from devkit.bench.text_corpus import shared_corpus
from pitui.store.conversation import context_items
from pitui.store.reader import Session
from pitui.ui.widgets.conversation.view import ConversationView


def build_session(messages: int, seed: int = 5000) -> bytes:
    rng = random.Random(seed)
    builder = SessionBuilder(rng, shared_corpus(seed), 1_770_000_000_000, scale=0.4)
    cwd = "/home/dev/projects/bench"
    builder.start(cwd)
    while sum(1 for _, kind in builder.path if kind != "meta") < messages:
        builder.turn()
    builder.header("019d0000-0000-7000-8000-000000000000", cwd)
    return builder.data()


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ConversationView()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def median_ms(times: list[float]) -> str:
    return f"{statistics.median(times) * 1000:7.1f} ms median, {max(times) * 1000:7.1f} ms max"


async def run(path: Path, size: tuple[int, int], steps: int, repeat: int) -> None:
    loads, decodes = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        session = Session.load(str(path))
        loaded = time.perf_counter()
        items = context_items(session)
        decodes.append(time.perf_counter() - loaded)
        loads.append(loaded - started)
    megabytes = path.stat().st_size / 1e6
    print(
        f"session: {len(session.entries):,} entries, {megabytes:.1f} MB; path of {len(items):,} messages; "
        f"terminal {size[0]}x{size[1]}"
    )
    print(f"Session.load                {median_ms(loads)}")
    print(f"context_items               {median_ms(decodes)}")

    app = BenchApp()
    async with app.run_test(size=size) as pilot:
        view = app.query_one(ConversationView)
        view.focus()
        await pilot.pause()

        # Through the pilot: the call, Textual's message processing and the frame.
        started = time.perf_counter()
        view.show(items)
        await pilot.pause()
        print(f"show, first paint (pilot)   {(time.perf_counter() - started) * 1000:7.1f} ms")
        blank = time.perf_counter()
        await pilot.press("f12")  # bound to nothing: what a key press costs the pilot itself
        press = time.perf_counter() - blank
        started = time.perf_counter()
        await pilot.press("pageup")
        print(
            f"page up key (pilot)         {(time.perf_counter() - started) * 1000:7.1f} ms   "
            f"(of which {press * 1000:.1f} ms is the pilot's own key press)"
        )

        # The widget's work alone: the call and a full repaint of the screen, no pilot.
        def paint() -> None:
            app.screen._compositor.render_update(full=True)

        def timed(call: Callable[[], None]) -> float:
            started = time.perf_counter()
            call()
            paint()
            return time.perf_counter() - started

        shows, agains, firsts, lasts, ups, downs = [], [], [], [], [], []
        for _ in range(repeat):
            view.show([])
            paint()
            shows.append(timed(lambda: view.show(items)))
            agains.append(timed(lambda: view.show(context_items(session))))
            ups += [timed(view.action_page_up) for _ in range(steps)]
            firsts.append(timed(view.action_first))
            downs += [timed(view.action_page_down) for _ in range(steps)]
            lasts.append(timed(view.action_last))
        print(f"show + repaint              {median_ms(shows)}")
        print(f"show again + repaint        {median_ms(agains)}   (items rebuilt from the file, blocks reused)")
        print(f"page up + repaint           {median_ms(ups)}   (from the end, {steps} steps)")
        print(f"home + repaint              {median_ms(firsts)}")
        print(f"page down + repaint         {median_ms(downs)}   (from the top, {steps} steps)")
        print(f"end + repaint               {median_ms(lasts)}")
        rendered = sum(1 for b in view._blocks if b.measured)
        print(f"messages rendered           {rendered:,} of {len(view._blocks):,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--size", default="120x40", help="terminal size, COLSxROWS")
    parser.add_argument("--steps", type=int, default=30, help="page up/down steps to time")
    parser.add_argument("--repeat", type=int, default=5, help="times each measurement is taken")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    with tempfile.TemporaryDirectory(prefix="pitui-conversation-bench-") as folder:
        path = Path(folder) / "bench.jsonl"
        path.write_bytes(build_session(args.messages))
        asyncio.run(run(path, (cols, rows), args.steps, args.repeat))


if __name__ == "__main__":
    main()
