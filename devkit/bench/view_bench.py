"""The session view on the big generated session: its first screen against pi's own open, and
the tree's actions once it is shown.

    python -m devkit.bench.view_bench [-n 5] [--reps 30] [--quick | --preset P] [--only first,actions] [--out DIR]

A script, not a test: it prints one JSON object on stdout (progress and every run on stderr)
and never fails on the figures. See devkit/bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from devkit.bench import bytecode, generate, pi_view, pitui_view
from devkit.bench.run import run_process
from devkit.env import REPO, Pi, pi16

BENCH = Path(__file__).resolve().parent
PI_BENCH = BENCH / "pi_bench.mjs"

TARGETS = {
    "first_screen_ratio": 0.25,  # pitui's first screen / pi's open
    "fold_ms": 20.0,  # wall, fold or unfold of a big subtree, to the next frame
    "filter_ms": 100.0,  # wall, a filter change (Ctrl+T), to the next frame
    "cursor_cpu_ms": 5.0,  # CPU, one step down, to the next frame
}

# Run as `python -c FIRST_SCREEN FILE`: the clock runs from the parent's launch of this process
# (imports included) to the first frame composed after the tree has its model and the
# conversation shows messages. Times are CLOCK_MONOTONIC, which every process shares.
# Only the app is imported: the screen is recognised by its class name, so that this script
# imports nothing the app would not have imported by then. The screen is looked at when a frame
# is composed, not polled: a loop waking every millisecond takes the interpreter from the
# reading thread hundreds of times a second (it made the first screen 0.3 s later).
FIRST_SCREEN = r"""
import asyncio, json, resource, sys, time
from pitui.ui.app import PituiApp
imported = time.monotonic()

async def main(path):
    app = PituiApp(open_path=path, watch=False)
    out = {"imported": imported}
    shown = asyncio.Event()
    display = app._display
    def ready():
        screen = app.screen
        if type(screen).__name__ != "SessionScreen" or screen.session is None:
            return False
        out.setdefault("loaded", time.monotonic())
        return screen.query_one("#tree").model is not None and bool(screen.query_one("#conversation").items)
    def frame(screen, renderable):
        first = renderable is not None and "frame" not in out and ready()
        display(screen, renderable)
        if first:
            out["items"] = out["frame"] = time.monotonic()
            shown.set()
    app._display = frame
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(shown.wait(), 300)
        screen = app.screen
        tree = screen.query_one("#tree")
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the parse workers, if any
        out["cpu"] = time.process_time() + kids.ru_utime + kids.ru_stime
        out["entries"] = len(screen.session.entries)
        out["items_shown"] = len(screen.query_one("#conversation").items)
        out["tree_rows"] = len(tree.model)
    print(json.dumps(out))

asyncio.run(main(sys.argv[1]))
"""

# Run as `python -c ACTIONS FILE REPS`: the tree's actions on the loaded session, each timed from
# the action's call to the first frame composed after it (wall and CPU time of this process).
ACTIONS = r"""
import asyncio, json, statistics, sys, time
from textual.worker import WorkerCancelled
from pitui.ui.app import PituiApp

async def main(path, reps):
    app = PituiApp(open_path=path, watch=False)
    frames = [0]
    display = app._display
    def frame(screen, renderable):
        if renderable is not None:
            frames[0] += 1
        display(screen, renderable)
    app._display = frame
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        while True:
            screen = app.screen
            if type(screen).__name__ == "SessionScreen" and screen.session is not None:
                tree = screen.query_one("#tree")
                if tree.model is not None and screen.query_one("#conversation").items:
                    break
            await asyncio.sleep(0.005)
        model = tree.model

        async def settle():
            await pilot.pause(0.06)  # past the screen's delay before it shows the path
            while True:  # an exclusive worker (the tree's rows) may be cancelled by a newer one
                try:
                    await app.workers.wait_for_complete()
                    break
                except WorkerCancelled:
                    await pilot.pause()
            await pilot.pause()

        async def timed(action):
            await settle()
            seen = frames[0]
            w, c = time.perf_counter(), time.process_time()
            action()
            for _ in range(5000):
                if frames[0] != seen:
                    break
                await asyncio.sleep(0)
                if frames[0] == seen:
                    await asyncio.sleep(0.0005)
            return (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000

        def summary(pairs):
            walls = [p[0] for p in pairs]
            cpus = [p[1] for p in pairs]
            return {"wall_ms": round(statistics.median(walls), 2), "cpu_ms": round(statistics.median(cpus), 2),
                    "wall_max_ms": round(max(walls), 2), "runs": len(pairs)}

        # The foldable row near the top whose fold hides the most rows (not the root's).
        best, hidden = -1, 0
        checked = 0
        for row in range(1, len(model)):
            if model.is_foldable(row):
                before = len(model)
                model.select_row(row)
                model.fold_or_up()
                gone = before - len(model)
                model.unfold_or_down()
                if gone > hidden:
                    best, hidden = row, gone
                checked += 1
                if checked >= 40:
                    break
        model.select_row(0)
        tree.refresh()
        fold, unfold = [], []
        if best >= 0:
            for _ in range(reps):
                model.select_row(best)
                fold.append(await timed(tree.action_fold_or_up))
                unfold.append(await timed(tree.action_unfold_or_down))
            out["fold"] = {**summary(fold), "rows_hidden": hidden, "row": best}
            out["unfold"] = summary(unfold)
        filt = []
        for _ in range(reps):
            filt.append(await timed(lambda: tree.action_toggle_filter("no-tools")))
        out["filter"] = {**summary(filt), "rows": len(model)}
        # The cursor on the bottom row of the view: every step scrolls the tree by one row.
        model.select_row(len(model) // 2)
        await settle()
        height = tree.scrollable_content_region.height
        tree.scroll_to(y=max(0, model.cursor - height + 1), animate=False, immediate=True)
        steps, scrolled = [], 0
        for _ in range(reps):
            top = round(tree.scroll_y)
            steps.append(await timed(tree.action_cursor_down))
            scrolled += round(tree.scroll_y) == top + 1
        out["cursor"] = {**summary(steps), "steps_scrolled": scrolled}
        # The cursor in the middle of the view: a step repaints two rows and scrolls nothing.
        tree.select(model.entry_id_at(len(model) // 2))
        steps = []
        for n in range(reps):
            steps.append(await timed(tree.action_cursor_down if n % 2 else tree.action_cursor_up))
        out["cursor_in_view"] = summary(steps)
        out["tree_rows"] = len(model)
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_pi(pi: Pi, big: Path) -> dict:
    """pi's open, whole process: node's start-up, SessionManager.open, getTree,
    buildSessionContext, buildSessionProjection (pi 1.6), getBranch (the file itself: pi
    rewrites only files it migrates or that lack a final newline, and the generated ones do not)."""
    r = run_process(
        pi.script(PI_BENCH, "open", str(big), "--no-copy", "--no-emit"), {**os.environ, **pi.env()}, capture=True
    )
    if r.returncode:
        raise RuntimeError(f"pi: {r.stderr.decode(errors='replace')[-2000:]}")
    info = json.loads(r.stdout)
    info["wall_s"] = r.wall_s
    info["cpu_s"] = r.cpu_s  # Node's helper threads included
    return info


def run_first_screen(big: Path, python: str, cache_home: Path | None = None) -> dict:
    """One launch to the first screen. ``cache_home`` (``XDG_CACHE_HOME``): where the session's
    index is; None, a fresh empty folder (the session never opened before)."""
    with tempfile.TemporaryDirectory(prefix="pitui-view-cache-") as fresh:
        env = {**child_env(), "XDG_CACHE_HOME": str(cache_home or fresh)}
        start = time.monotonic()
        r = subprocess.run([python, "-c", FIRST_SCREEN, str(big)], capture_output=True, check=False, env=env, cwd=REPO)
    if r.returncode:
        raise RuntimeError(f"pitui: {r.stderr.decode(errors='replace')[-2000:]}")
    info = json.loads(r.stdout.splitlines()[-1])
    return {
        "first_screen_s": info["frame"] - start,
        "imported_s": info["imported"] - start,
        "loaded_s": info["loaded"] - start,
        "items_s": info["items"] - start,
        "cpu_s": info["cpu"],
        "entries": info["entries"],
        "tree_rows": info["tree_rows"],
    }


def med(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=5, help="runs of each program for the first screen")
    ap.add_argument("--reps", type=int, default=30, help="repetitions of each tree action")
    ap.add_argument("--quick", action="store_true", help="the small data set (10,000 entries)")
    ap.add_argument("--preset", choices=sorted(generate.PRESETS), help="a data preset by name (1g: 1,000,000 entries)")
    ap.add_argument(
        "--only",
        default="first,reopen,pi_view,pitui_view,actions",
        help="first, reopen, pi_view, pitui_view, actions, or several (comma-separated)",
    )
    ap.add_argument("--out", type=Path, help="data cache folder (default $TMPDIR/pitui-bench)")
    ap.add_argument("--python", default=sys.executable, help="the Python that runs pitui")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))

    data = generate.ensure(args.preset or ("quick" if args.quick else "full"), args.out, log=log)
    bytecode.ensure_compiled()
    big = data.big
    with big.open("rb") as f:  # both programs start with the file in the page cache
        while f.read(1 << 22):
            pass
    log(f"data: {big} ({data.big_bytes / 1e6:.0f} MB, {data.big_entries} entries)")
    report: dict = {
        "file": str(big),
        "mb": round(data.big_bytes / 1e6, 1),
        "entries": data.big_entries,
        "cpus": os.cpu_count(),
        "load_average_before": round(os.getloadavg()[0], 2),
    }
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(REPO), "status", "--porcelain", "--", "pitui"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.strip()
        )
        report["commit"], report["pitui_dirty"] = commit, dirty
    except OSError:
        pass

    if "first" in only:
        pi = pi16()
        report["pi"] = {"version": pi.version, "node": pi.node, "package": str(pi.package)}
        pis: list[dict] = []
        firsts: list[dict] = []
        for i in range(args.runs):
            firsts.append(run_first_screen(big, args.python))
            pis.append(run_pi(pi, big))
            log(
                f"  run {i + 1}: pitui first screen {firsts[-1]['first_screen_s']:.3f} s "
                f"(imports {firsts[-1]['imported_s']:.3f}, loaded {firsts[-1]['loaded_s']:.3f})  "
                f"pi open {pis[-1]['wall_s']:.3f} s"
            )
        pi_s = med([p["wall_s"] for p in pis])
        first_s = med([f["first_screen_s"] for f in firsts])
        ratio = round(first_s / pi_s, 3)
        report["pi_open"] = {
            "wall_s": pi_s,
            "runs_s": [round(p["wall_s"], 3) for p in pis],
            "cpu_s": med([p["cpu_s"] for p in pis]),
            "import_s": med([p["import_s"] for p in pis]),
            "open_s": med([p["open_s"] for p in pis]),
            "tree_s": med([p["tree_s"] for p in pis]),
            "context_s": med([p["context_s"] for p in pis]),
            **({"projection_s": med([p["projection_s"] for p in pis])} if "projection_s" in pis[-1] else {}),
            "entries": pis[-1]["entries"],
        }
        report["pitui_first_screen"] = {
            "wall_s": first_s,
            "runs_s": [round(f["first_screen_s"], 3) for f in firsts],
            "cpu_s": med([f["cpu_s"] for f in firsts]),
            "imported_s": med([f["imported_s"] for f in firsts]),
            "loaded_s": med([f["loaded_s"] for f in firsts]),
            "items_s": med([f["items_s"] for f in firsts]),
            "entries": firsts[-1]["entries"],
            "tree_rows": firsts[-1]["tree_rows"],
            "ratio": ratio,
            "target": TARGETS["first_screen_ratio"],
            "ok": ratio <= TARGETS["first_screen_ratio"],
        }

    if "reopen" in only:
        # The session opened before: its index written by one launch, then the launches timed.
        with tempfile.TemporaryDirectory(prefix="pitui-view-reopen-") as home:
            run_first_screen(big, args.python, Path(home))
            reopens = []
            for i in range(args.runs):
                reopens.append(run_first_screen(big, args.python, Path(home)))
                log(f"  reopen {i + 1}: first screen {reopens[-1]['first_screen_s']:.3f} s")
        pi_s = report.get("pi_open", {}).get("wall_s")
        reopen_s = med([f["first_screen_s"] for f in reopens])
        report["pitui_reopen_first_screen"] = {
            "wall_s": reopen_s,
            "runs_s": [round(f["first_screen_s"], 3) for f in reopens],
            "cpu_s": med([f["cpu_s"] for f in reopens]),
            "imported_s": med([f["imported_s"] for f in reopens]),
            "loaded_s": med([f["loaded_s"] for f in reopens]),
            **({"ratio": round(reopen_s / pi_s, 3), "target": 0.1} if pi_s else {}),
        }

    if "pi_view" in only:
        if shutil.which("tmux") is None:
            report["pi_view"] = {"error": "tmux is not installed"}
        else:
            log(f"pi_view: pi --session in tmux, {args.runs} runs")
            view = pi_view.measure(pi16(), big, args.runs, data.root)
            log(f"  pi --session: {view['runs_s']}")
            report["pi_view"] = view
            first = report.get("pitui_first_screen", {}).get("wall_s")
            if first and view.get("wall_s"):
                view["ratio"] = round(first / view["wall_s"], 3)  # pitui's first screen / pi's

    if "pitui_view" in only:
        if shutil.which("tmux") is None:
            report["pitui_view"] = {"error": "tmux is not installed"}
        else:
            argv = [args.python, "-m", "pitui"]
            for key, reopen in (("pitui_view", False), ("pitui_view_reopen", True)):
                log(f"{key}: pitui FILE in tmux, {args.runs} runs")
                view = pitui_view.measure(argv, big, args.runs, data.root, reopen=reopen, env=child_env())
                log(f"  pitui FILE{' (reopened)' if reopen else ''}: {view['runs_s']}")
                pi_s = report.get("pi_view", {}).get("wall_s")
                if pi_s and view.get("wall_s"):
                    view["ratio_to_pi_view"] = round(view["wall_s"] / pi_s, 3)
                pi_open = report.get("pi_open", {}).get("wall_s")
                if pi_open and view.get("wall_s"):
                    view["ratio_to_pi_open"] = round(view["wall_s"] / pi_open, 3)
                report[key] = view

    if "actions" in only:
        log(f"actions: {args.reps} repetitions each")
        r = subprocess.run(
            [args.python, "-c", ACTIONS, str(big), str(args.reps)],
            capture_output=True,
            check=False,
            env=child_env(),
            cwd=REPO,
        )
        if r.returncode:
            report["actions_error"] = r.stderr.decode(errors="replace")[-2000:]
        else:
            acts = json.loads(r.stdout.splitlines()[-1])
            for key in ("fold", "unfold"):
                if key in acts:
                    acts[key]["target_wall_ms"] = TARGETS["fold_ms"]
                    acts[key]["ok"] = acts[key]["wall_ms"] < TARGETS["fold_ms"]
            acts["filter"]["target_wall_ms"] = TARGETS["filter_ms"]
            acts["filter"]["ok"] = acts["filter"]["wall_ms"] < TARGETS["filter_ms"]
            acts["cursor"]["target_cpu_ms"] = TARGETS["cursor_cpu_ms"]
            acts["cursor"]["ok"] = acts["cursor"]["cpu_ms"] < TARGETS["cursor_cpu_ms"]
            acts["cursor_in_view"]["target_cpu_ms"] = TARGETS["cursor_cpu_ms"]
            acts["cursor_in_view"]["ok"] = acts["cursor_in_view"]["cpu_ms"] < TARGETS["cursor_cpu_ms"]
            report["actions"] = acts

    report["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
