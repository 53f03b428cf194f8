"""The session tree's model (pitui.store.tree.model) on big sessions: prints figures, never fails.

Two data sets: the benchmark's big session (100,000 entries, ~108 MB, from generate.py, with
branches, labels and compactions) and a chain 50,000 entries deep with no branch at all (made
here, cached next to the other data). For each, the median of N runs of:

* ``load``: ``Session.load``; ``build``: ``TreeModel(session)`` (tree, order, first layout);
  ``first_screen``: the text of the 40 rows around the cursor (bodies decoded for these only);
  ``open_total``: the three together, what a user waits for.
* ``fold`` / ``unfold``: the root, whose fold hides every other row, and back.
* ``filter``: each change of filter mode, slowest and median.
* ``cursor_step``: one row down plus that row's text; ``page_step``: 40 rows down.
* ``segment_jump``: pi's Ctrl+→ (to the next branch point, or the end of a 50,000-long chain).
* ``search_first``: the first query (decodes every entry once); ``search``: a later query.
* ``update``: ``TreeModel.update()`` after one entry was appended and read.
* ``widget_*``: the SessionTree widget in a headless 120x40 app: ``widget_mount`` (the app
  started, the built model mounted and painted), then the widget's work for an action and the
  lines it makes for the screen: ``widget_key_step`` (↓, two lines), ``widget_page`` (PgDn),
  ``widget_first`` (Home), ``widget_fold`` and ``widget_unfold`` (Ctrl+←/→ on the root),
  ``widget_filter`` (Ctrl+U, on and off), each with all 40 lines.

    python -m devkit.bench.tree_bench [--quick] [-n 5] [--out DIR] [--entries N] [--no-widget]

``--entries N`` measures, in place of the two data sets, a big session of N entries made by the
same builder as the benchmark's (``data_sets.build_big``, the full preset's seed: the same bytes
every time), cached next to the other data (``big-<N>-<key>.jsonl``; 1,000,000 entries are about
1 GB and take a few minutes to make).

Run ``python -m compileall -q pitui`` first (bytecode is not written when
``PYTHONDONTWRITEBYTECODE`` is set). The data is devkit/bench/generate.py's (see devkit/bench/README.md).
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from devkit.bench import generate
from devkit.bench.data_sets import build_big
from pitui.store.model import Entry
from pitui.store.reader import Session
from pitui.store.tree import FILTERS, TreeModel

SCREEN = 40
CLOCK = time.perf_counter  # --cpu: time.process_time, the CPU this process used


def chain_file(root: Path, count: int) -> Path:
    """A session that is one chain of ``count`` entries: user, assistant with a tool call, tool
    result, assistant with text, again and again."""
    path = root / f"chain-{count}.jsonl"
    if path.exists():
        return path
    root.mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "019c0000-0000-7000-8000-000000000000",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/home/user/project",
        }
    ]
    parent = None
    for i in range(count):
        ts = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
        kind = i % 4
        if kind == 0:
            message = {"role": "user", "content": f"Step {i}: look at module {i % 97} again", "timestamp": i}
        elif kind == 1:
            message = {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": f"call{i}",
                        "name": "read",
                        "arguments": {"path": f"/home/user/project/m{i % 97}.py"},
                    }
                ],
                "stopReason": "toolUse",
                "timestamp": i,
            }
        elif kind == 2:
            message = {
                "role": "toolResult",
                "toolCallId": f"call{i - 1}",
                "toolName": "read",
                "content": [{"type": "text", "text": f"def f{i}():\n    return {i}\n"}],
                "isError": False,
                "timestamp": i,
            }
        else:
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Module {i % 97} is fine."}],
                "stopReason": "stop",
                "timestamp": i,
            }
        eid = f"{i:08x}"
        lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": message})
        parent = eid
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    tmp.rename(path)
    return path


def big_file(root: Path, entries: int) -> Path:
    """The benchmark's big session with ``entries`` entries (made once, then cached)."""
    params = generate.Params(big_entries=entries)
    path = root / f"big-{entries}-{params.key()}.jsonl"
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        print(f"making {path.name} ...", file=sys.stderr)
        _, data = build_big(params)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.rename(path)
    return path


def timed(fn: Callable[[], object]) -> float:
    start = CLOCK()
    fn()
    return CLOCK() - start


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def screen(model: TreeModel) -> list[str]:
    start = max(0, model.cursor - SCREEN // 2)
    return [model.row(row).plain for row in range(start, min(len(model), start + SCREEN))]


def measure(path: Path, runs: int) -> dict[str, object]:
    out: dict[str, list[float]] = {}
    for _ in range(runs):
        gc.collect()
        for name, seconds in run_once(path):
            out.setdefault(name, []).append(seconds)
    report: dict[str, object] = {name: median_ms(samples) for name, samples in out.items()}
    report["filter_slowest"] = round(max(out["filter"]) * 1000, 2)
    return report


def run_once(path: Path) -> list[tuple[str, float]]:
    times: list[tuple[str, float]] = []
    start = CLOCK()
    session = Session.load(str(path))
    loaded = CLOCK()
    model = TreeModel(session)
    built = CLOCK()
    screen(model)
    shown = CLOCK()
    times += [
        ("load", loaded - start),
        ("build", built - loaded),
        ("first_screen", shown - built),
        ("open_total", shown - start),
    ]
    model.first()
    times.append(("fold", timed(model.fold)))
    times.append(("unfold", timed(model.unfold)))
    for mode in (*FILTERS[1:], "default"):
        times.append(("filter", timed(lambda mode=mode: model.set_filter(mode))))
    model.first()
    times.append(
        ("cursor_step", statistics.median(timed(lambda: (model.down(), model.row(model.cursor))) for _ in range(1000)))
    )
    model.first()
    times.append(("page_step", statistics.median(timed(lambda: model.page_down(SCREEN)) for _ in range(100))))
    model.first()
    times.append(("segment_jump", timed(model.unfold_or_down)))
    times.append(("search_first", timed(lambda: model.set_query("module"))))
    times.append(("search", timed(lambda: model.set_query("fine"))))
    model.set_query("")
    times.append(("update", timed(lambda: update(session, model))))
    return times


def widget_figures(path: Path, runs: int) -> dict[str, object]:
    """The widget's own work per action: the action, then the lines it makes for the screen.
    Textual's own cost per key in a headless app (about 60 ms here under ``Pilot``, for any
    widget) is left out."""
    import asyncio

    from textual.app import App, ComposeResult

    from pitui.ui.widgets.session_tree import SessionTree

    model = TreeModel(Session.load(str(path)))

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionTree(model)

    async def go() -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for _ in range(runs):
            app = TreeApp()
            start = time.perf_counter()
            async with app.run_test(size=(120, 40)) as pilot:
                await pilot.pause()
                out.setdefault("widget_mount", []).append(time.perf_counter() - start)
                for name, seconds in widget_actions(app.query_one(SessionTree)):
                    out.setdefault(name, []).append(seconds)
                    await pilot.pause()
        return out

    return {name: median_ms(samples) for name, samples in asyncio.run(go()).items()}


def widget_actions(tree: Any) -> Iterator[tuple[str, float]]:
    height = tree.size.height

    def paint(action: Callable[[], object], whole: bool) -> float:
        begin = time.perf_counter()
        action()
        at = tree.model.cursor - tree.scroll_offset.y
        for y in range(height) if whole else (at - 1, at):
            tree.render_line(y)
        return time.perf_counter() - begin

    for _ in range(10):
        yield "widget_key_step", paint(tree.action_cursor_down, False)
    for _ in range(10):
        yield "widget_page", paint(tree.action_page_down, True)
    yield "widget_first", paint(tree.action_first, True)
    yield "widget_fold", paint(tree.action_fold_or_up, True)
    yield "widget_unfold", paint(tree.action_unfold_or_down, True)
    for _ in range(2):
        yield "widget_filter", paint(lambda: tree.action_toggle_filter("user-only"), True)


def update(session: Session, model: TreeModel) -> None:
    """The model's part of following a growing file: the entry is added in memory (reading it
    from the file is Session.refresh's cost, not the tree's)."""
    leaf = session.leaf_id
    entry = Entry.from_data(
        {
            "type": "message",
            "id": "feedf00d",
            "parentId": leaf,
            "timestamp": "2026-02-01T00:00:00.000Z",
            "message": {"role": "user", "content": "one more"},
        }
    )
    session.add(entry)
    model.update()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the small data set (10,000 entries, a 5,000 chain)")
    ap.add_argument("-n", type=int, default=5, help="runs per measurement (median)")
    ap.add_argument("--out", type=Path, default=None, help="data folder (default $TMPDIR/pitui-bench)")
    ap.add_argument("--entries", type=int, help="a big session of this many entries instead (see above)")
    ap.add_argument("--no-widget", action="store_true", help="the model's figures only")
    ap.add_argument("--cpu", action="store_true", help="CPU time of the process, not wall (a busy machine)")
    args = ap.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time
    preset = "quick" if args.quick else "full"
    if args.entries:
        root = (args.out or generate.default_root()) / preset
        sets = [(f"big session of {args.entries:,}", big_file(root, args.entries))]
    else:
        data = generate.ensure(preset, args.out, log=lambda *a: print(*a, file=sys.stderr))
        sets = [("big session", data.big), ("deep chain", chain_file(data.root, 5_000 if args.quick else 50_000))]
    load = os.getloadavg()[0]
    clock = "CPU" if args.cpu else "wall"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {load:.1f}, {clock} ms (median of {args.n})")
    for name, path in sets:
        report = measure(path, args.n)
        if not args.no_widget:
            report.update(widget_figures(path, args.n))
        entries = len(Session.load(str(path)).entries)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"\n{name}: {path.name}, {entries} entries, {path.stat().st_size / 1e6:.0f} MB, peak RSS {peak:.0f} MiB")
        width = max(map(len, report))
        for key, value in report.items():
            print(f"  {key:<{width}}  {value:>9}")


if __name__ == "__main__":
    main()
