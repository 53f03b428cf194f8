"""The session picker, pitui against pi's own (`pi -r`), in one run, on the same generated data.

Both programs run full-screen inside a private tmux server at a fixed size; the time is from
launch until the rows are on screen (the pane's text is polled every few milliseconds).

* ``current``: this folder's sessions. pi: pi 1.6.0's ``pi -r`` on Node 22
  (``node22 $PI_PKG/dist/cli.js -r``); pitui: ``pitui``,
  with a fresh empty cache (cold) and with the cache the cold run left (warm).
* ``all``: every project's sessions. pi: launch, Tab as soon as the picker is up; pitui:
  ``pitui --all`` (cold, and warm as an extra figure).
* ``search``: one keystroke in pitui's search box once the full-text index is built, headless
  (``PituiApp.run_test()``): from the key until the list shows the filtered rows.

    python -m devkit.bench.picker_bench [--quick] [-n 3] [--only current,all,search] [--out DIR]

Prints one JSON object on stdout; progress goes to stderr. Never fails on the figures.
See devkit/bench/README.md, "The picker".
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from devkit.bench import bytecode, generate
from devkit.bench.picker_layout import Layout, warm_page_cache
from devkit.bench.picker_search import INDEX_MODES, search_child
from devkit.bench.tmux import PaneGone, Tmux, tree_cpu
from devkit.env import REPO, Pi, pi16, tool_versions

BENCH = Path(__file__).resolve().parent

# pitui's time as a fraction of pi's; the keystroke in milliseconds.
TARGETS = {"current": 0.5, "all": 0.25, "search_ms": 50.0}
MEASUREMENTS = ("current", "all", "search")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


# ------------------------------------------------------------------------------------ programs


def pitui_command() -> list[str]:
    """The ``pitui`` of the Python environment this script runs in."""
    exe = Path(sys.executable).parent / "pitui"
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [sys.executable, "-m", "pitui"]


# ------------------------------------------------------------------------------------ what is on screen


def picker_up(screen: str) -> bool:
    """The picker has drawn itself (its title), rows or not."""
    return "Resume Session" in screen


def pi_rows_shown(count: int, scope: str) -> Callable[[str], bool]:
    """pi's picker lists the ``count`` sessions of ``scope`` ("current" or "all").

    pi draws the rows and the scroll indicator ``(1/<count>)`` under them in the same frame,
    once the loader has finished (before that the body is the empty-state text or, after Tab,
    still this folder's rows); the header then says ``◉ Current Folder`` or ``◉ All`` where it
    said ``Loading x/y``. All three together: every session of the scope is listed.
    """
    marker = "◉ Current Folder" if scope == "current" else "◉ All"
    counter = f"(1/{count})"

    def ready(screen: str) -> bool:
        return counter in screen and marker in screen and "Loading" not in screen

    return ready


def pitui_rows_shown(count: int, scope: str) -> Callable[[str], bool]:
    """pitui's picker lists the ``count`` sessions of ``scope``, and has finished loading.

    The status line under pitui's list says ``(1/<count>)`` (cursor on the first of ``count``
    rows) as pi's scroll indicator does, from the same frame as the rows. pitui shows the
    rows its cache holds at once and checks them against the files afterwards, saying
    ``Loading x/y`` in the header (as pi does) until that is done: rows and no ``Loading`` is
    the same state as pi's, every session of the scope listed from the files as they are now.
    """
    return pi_rows_shown(count, scope)


def pitui_rows_listed(count: int) -> Callable[[str], bool]:
    """pitui's ``count`` rows are on screen, maybe from the cache while the files are checked."""
    counter = f"(1/{count})"
    return lambda screen: counter in screen


def first_row(screen: str, cursor: str = "›") -> str | None:
    """The selected row's message text (up to its first run of two spaces), for a check that
    both pickers start on the same session."""
    for line in screen.splitlines():
        stripped = line.strip().lstrip("│▌▎┃ ")
        if stripped.startswith(cursor):
            text = stripped[len(cursor) :].strip()
            return text.split("  ")[0].rstrip("…").strip()[:40].strip()
    return None


# ------------------------------------------------------------------------------------ runs


@dataclass
class Series:
    times: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    up: list[float] = field(default_factory=list)  # the picker's title on screen
    first: list[float] = field(default_factory=list)  # pitui: rows on screen, maybe still loading
    errors: list[str] = field(default_factory=list)
    screen: str | None = None

    def fields(self, prefix: str) -> dict:
        out: dict = {f"{prefix}_s": median(self.times), f"{prefix}_runs_s": [round(t, 3) for t in self.times]}
        if self.up:
            out[f"{prefix}_up_s"] = median(self.up)
        if self.first:
            out[f"{prefix}_first_rows_s"] = median(self.first)
        if self.cpu:
            out[f"{prefix}_cpu_s"] = median(self.cpu)
        if self.errors:
            out[f"{prefix}_errors"] = self.errors
        return out


class PickerBench:
    def __init__(self, layout: Layout, tmux: Tmux, pi: Pi, args: argparse.Namespace, work: Path) -> None:
        self.layout = layout
        self.tmux = tmux
        self.pi_argv = [*pi.cli(), "-r"]
        self.pitui_argv = shlex.split(args.pitui_cmd) if args.pitui_cmd else pitui_command()
        self.base_env = dict(os.environ)
        self.poll = args.poll_ms / 1000
        self.timeout = args.timeout
        self.settle = args.settle
        self.work = work
        self.caches = 0

    def fresh_cache(self) -> Path:
        self.caches += 1
        path = self.work / f"xdg-cache-{self.caches}"
        path.mkdir(parents=True)
        return path

    def run(
        self,
        label: str,
        argv: list[str],
        ready: Callable[[str], bool],
        series: Series,
        *,
        cache: Path | None = None,
        tab: bool = False,
        quit_keys: tuple[str, ...] = (),
        first_rows: Callable[[str], bool] | None = None,
    ) -> None:
        env = self.layout.env(self.base_env, cache)
        name, start = self.tmux.launch(self.layout.cwd, argv, env)
        try:
            pid = self.tmux.pane_pid(name)
            up, _ = self.tmux.wait_for(name, picker_up, start, self.poll, self.timeout)
            series.up.append(up)
            if tab:
                self.tmux.keys(name, "Tab")
            if first_rows is not None:
                series.first.append(self.tmux.wait_for(name, first_rows, start, self.poll, self.timeout)[0])
            elapsed, screen = self.tmux.wait_for(name, ready, start, self.poll, self.timeout)
            # Right after the launch tmux sometimes answers with no pid yet: asked again.
            pid = pid or self.tmux.pane_pid(name)
            cpu = tree_cpu(pid) if pid else None
            series.times.append(elapsed)
            if cpu is not None:
                series.cpu.append(cpu)
            series.screen = screen
            log(f"  {label}: {elapsed:.3f}s" + (f" (cpu {cpu:.2f}s)" if cpu is not None else ""))
        except (TimeoutError, PaneGone) as error:
            message = str(error).strip()
            series.errors.append(message.splitlines()[0])
            log(f"  {label}: FAILED: {message}")
        finally:
            self.tmux.end(name, quit_keys)
            time.sleep(self.settle)

    def pi(self, ready: Callable[[str], bool], series: Series, label: str, tab: bool = False) -> None:
        self.run(label, self.pi_argv, ready, series, tab=tab, quit_keys=("Escape",))

    def pitui(self, args: list[str], count: int, scope: str, series: Series, label: str, cache: Path) -> None:
        self.run(
            label,
            [*self.pitui_argv, *args],
            pitui_rows_shown(count, scope),
            series,
            cache=cache,
            quit_keys=("C-q",),
            first_rows=pitui_rows_listed(count),
        )

    def baseline(self, runs: int = 5) -> float | None:
        """tmux's own share of every figure: launch to a trivial program's text on screen."""
        series = Series()
        for _ in range(runs):
            argv = ["sh", "-c", "printf ready; exec sleep 60"]
            name, start = self.tmux.launch(self.layout.cwd, argv, self.layout.env(self.base_env))
            try:
                elapsed, _ = self.tmux.wait_for(name, lambda s: "ready" in s, start, self.poll, 10)
                series.times.append(elapsed)
            finally:
                self.tmux.end(name, ())
        return median(series.times)

    def warm_up(self) -> None:
        """One untimed launch of each, so that both start with their own files in the page cache."""
        lay = self.layout
        self.pi(pi_rows_shown(lay.folder_sessions, "current"), Series(), "warm-up pi")
        self.pitui([], lay.folder_sessions, "current", Series(), "warm-up pitui", self.fresh_cache())

    def current(self, n: int) -> dict:
        lay = self.layout
        log(f"current: this folder's {lay.folder_sessions} sessions")
        pi, cold, warm = Series(), Series(), Series()
        for i in range(n):
            self.pi(pi_rows_shown(lay.folder_sessions, "current"), pi, f"run {i + 1} pi")
            cache = self.fresh_cache()
            self.pitui([], lay.folder_sessions, "current", cold, f"run {i + 1} pitui cold", cache)
            self.pitui([], lay.folder_sessions, "current", warm, f"run {i + 1} pitui warm", cache)
        out = self.summary(pi, {"cold": cold, "warm": warm}, TARGETS["current"], lay.folder_sessions)
        return out

    def all(self, n: int) -> dict:
        lay = self.layout
        log(f"all: {lay.all_sessions} sessions")
        pi, cold, warm = Series(), Series(), Series()
        for i in range(n):
            self.pi(pi_rows_shown(lay.all_sessions, "all"), pi, f"run {i + 1} pi (Tab)", tab=True)
            cache = self.fresh_cache()
            self.pitui(["--all"], lay.all_sessions, "all", cold, f"run {i + 1} pitui --all cold", cache)
            self.pitui(["--all"], lay.all_sessions, "all", warm, f"run {i + 1} pitui --all warm", cache)
        out = self.summary(pi, {"cold": cold, "warm": warm}, TARGETS["all"], lay.all_sessions)
        return out

    @staticmethod
    def summary(pi: Series, pitui: dict[str, Series], target: float, count: int) -> dict:
        out: dict = {"sessions": count, "target": target, **pi.fields("pi")}
        for kind, series in pitui.items():
            out.update(series.fields(f"pitui_{kind}"))
            r = ratio(median(series.times), median(pi.times))
            out[f"ratio_{kind}"] = r
            out[f"ok_{kind}"] = r <= target if r is not None else None
        rows = {"pi": first_row(pi.screen or "")}
        for kind, series in pitui.items():
            rows[f"pitui_{kind}"] = first_row(series.screen or "")
        out["first_row"] = rows
        known = [row[:30] for row in rows.values() if row]
        out["same_first_row"] = len(known) == len(rows) and len(set(known)) == 1
        return out


# ------------------------------------------------------------------------------------ search keystroke


def search_bench(
    layout: Layout,
    work: Path,
    keystrokes: int,
    query: str,
    size: tuple[int, int],
    index: str = "app",
    profile: Path | None = None,
) -> dict:
    """Headless: pitui's picker over every session, the full-text index built, then single
    characters typed into the search box (``query``, a character at a time, again and again
    until ``keystrokes`` were timed). Runs in a child process, in the throwaway environment."""
    import json

    cache = work / "xdg-cache-search"
    cache.mkdir(parents=True, exist_ok=True)
    env = layout.env(dict(os.environ), cache)
    # The child runs this module from the session folder: the repository goes on its path.
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [
        sys.executable,
        "-m",
        "devkit.bench.picker_bench",
        "--search-child",
        "--keystrokes",
        str(keystrokes),
        "--query",
        query,
        "--size",
        f"{size[0]}x{size[1]}",
        "--expect",
        str(layout.all_sessions),
        "--search-index",
        index,
    ]
    if profile is not None:
        cmd += ["--search-profile", str(profile.resolve())]
    proc = subprocess.run(cmd, cwd=layout.cwd, env=env, capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-3:]
        log("  search failed: " + " | ".join(tail))
        return {"error": f"exit status {proc.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1])


# ------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data (200 sessions in 12 folders)")
    ap.add_argument("--preset", choices=sorted(generate.PRESETS), help="a data preset by name (10k: 10,000 sessions)")
    ap.add_argument("-n", "--runs", type=int, default=3, help="runs per measurement and program (median)")
    ap.add_argument("--only", help="comma-separated: " + ",".join(MEASUREMENTS))
    ap.add_argument("--out", type=Path, help="data cache folder (default $TMPDIR/pitui-bench)")
    ap.add_argument(
        "--project",
        help="the generated project folder (encoded name) used as this folder; default: the one with the most sessions",
    )
    ap.add_argument("--size", default="120x40", help="terminal size, COLSxROWS")
    ap.add_argument("--poll-ms", type=float, default=5.0, help="how often the screen is read")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds before a run counts as failed")
    ap.add_argument("--settle", type=float, default=0.3, help="pause between runs, seconds")
    ap.add_argument("--keystrokes", type=int, default=30, help="search: keystrokes timed")
    ap.add_argument("--query", default=generate.SEARCH_QUERY, help="search: the text typed, a character at a time")
    ap.add_argument(
        "--search-index",
        choices=INDEX_MODES,
        default="app",
        help="search: the full-text index built by the app in the background (app), by the bench (bench), or none",
    )
    ap.add_argument(
        "--search-profile",
        type=Path,
        help="search: write a cProfile of the UI thread, from each timed key to its frame, to this file",
    )
    ap.add_argument(
        "--pitui-cmd",
        help="the pitui command, split as the shell does (default: the pitui next to "
        "this Python); e.g. a profiler in front of it",
    )
    ap.add_argument("--keep", action="store_true", help="keep the throwaway home, agent folder and caches")
    ap.add_argument("--search-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--expect", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    width, height = (int(x) for x in args.size.lower().split("x"))
    if args.search_child:
        return search_child(
            args.keystrokes,
            args.query,
            (width, height),
            args.expect,
            TARGETS["search_ms"],
            args.search_index,
            str(args.search_profile) if args.search_profile else None,
        )
    only = set(args.only.split(",")) if args.only else set(MEASUREMENTS)
    if unknown := only - set(MEASUREMENTS):
        ap.error(f"unknown measurement(s): {', '.join(sorted(unknown))}")
    if shutil.which("tmux") is None and only - {"search"}:
        raise SystemExit("tmux is not installed")
    pi = pi16()

    preset = args.preset or ("quick" if args.quick else "full")
    data = generate.ensure(preset, args.out, log=log)
    log(f"data: {data.sessions} sessions ({data.tree_bytes / 1e6:.0f} MB) in {data.agent_dir}")
    warm_page_cache(data)
    bytecode.ensure_compiled()
    work = Path(tempfile.mkdtemp(prefix="picker-", dir=data.root))
    layout = Layout.make(data, work / "layout", args.project)
    log(f"this folder: {layout.cwd} = the project {layout.project} ({layout.folder_sessions} sessions)")
    versions = tool_versions(tmux=True, pis=(pi,), dirty_paths=("pitui", "styles"))
    load_before = os.getloadavg()[0]
    results: dict = {}
    tmux = None

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    bench = None
    try:
        if only - {"search"}:
            tmux = Tmux(width, height, layout.env(dict(os.environ)))
            bench = PickerBench(layout, tmux, pi, args, work)
            results["tmux_baseline_s"] = bench.baseline()
            log(f"tmux: launch to a trivial program's text: {results['tmux_baseline_s']}s")
            bench.warm_up()
            if "current" in only:
                results["current"] = bench.current(args.runs)
            if "all" in only:
                results["all"] = bench.all(args.runs)
        if "search" in only:
            log("search: keystrokes, headless")
            results["search"] = search_bench(
                layout, work, args.keystrokes, args.query, (width, height), args.search_index, args.search_profile
            )
    finally:
        if tmux is not None:
            tmux.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    import json

    report = {
        "preset": preset,
        "runs": args.runs,
        "size": f"{width}x{height}",
        "poll_ms": args.poll_ms,
        "data": {
            "agent_dir": str(data.agent_dir),
            "sessions": data.sessions,
            "sessions_mb": round(data.tree_bytes / 1e6, 1),
        },
        "this_folder": {"project": layout.project, "sessions": layout.folder_sessions},
        "pi_command": bench.pi_argv if bench else None,
        "pitui_command": bench.pitui_argv if bench else pitui_command(),
        "versions": versions,
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        **results,
    }
    print(json.dumps(report, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
