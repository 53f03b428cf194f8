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
import asyncio
import contextlib
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

from devkit.bench import generate
from devkit.env import REPO, Pi, pi16, tool_versions
from pitui.store.paths import encode_cwd

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


# ------------------------------------------------------------------------------------ the folders


@dataclass
class Layout:
    """A throwaway home and agent folder over the generated sessions.

    The generated sessions belong to made-up projects (``/home/dev/projects/...``) that do not
    exist here, and pi's "current folder" is the folder of the process's real working directory.
    So the agent folder is a new one: ``sessions/<project>/`` folders holding symbolic links to
    the generated files, one project's under the encoded name of a real folder (``cwd``), which
    both programs then treat as the current folder. Folders are real (pi's ``listAll`` skips
    linked folders); files are links (both programs follow them, and a fork's ``parentSession``
    still resolves to its parent, so threads are the same as in the generated tree). Whatever pi
    or pitui write (pi creates the current folder's session folder if it is missing; pitui's
    cache) goes here, never into the generated data.
    """

    root: Path
    home: Path
    agent: Path
    cwd: Path
    project: str  # the generated project's cwd
    folder_sessions: int
    all_sessions: int

    @classmethod
    def make(cls, data: generate.Dataset, root: Path, project_folder: str | None) -> Layout:
        src = data.agent_dir / "sessions"
        folders = {
            p.name: sorted(f.name for f in p.iterdir() if f.name.endswith(".jsonl"))
            for p in src.iterdir()
            if p.is_dir()
        }
        if project_folder is None:  # the project with the most sessions (ties: by name)
            project_folder = max(sorted(folders), key=lambda name: len(folders[name]))
        if project_folder not in folders:
            raise SystemExit(f"no project folder {project_folder!r} in {src}")
        home, agent, cwd = root / "home", root / "agent", root / "project"
        for path in (home, agent / "sessions", cwd):
            path.mkdir(parents=True)
        for name, files in folders.items():
            target = agent / "sessions" / (encode_cwd(str(cwd.resolve())) if name == project_folder else name)
            target.mkdir()
            for file in files:
                os.symlink(src / name / file, target / file)
        project = _header_cwd(src / project_folder / folders[project_folder][0])
        return cls(
            root,
            home,
            agent,
            cwd.resolve(),
            project,
            len(folders[project_folder]),
            sum(len(f) for f in folders.values()),
        )

    def env(self, base: dict[str, str], cache: Path | None = None) -> dict[str, str]:
        env = dict(base)
        for name in ("PI_CODING_AGENT_SESSION_DIR", "PITUI_CONFIG", "NO_COLOR", "TMUX", "TMUX_PANE"):
            env.pop(name, None)
        env.update(
            {
                "HOME": str(self.home),
                "PI_CODING_AGENT_DIR": str(self.agent),
                "XDG_CONFIG_HOME": str(self.home / ".config"),
                "XDG_DATA_HOME": str(self.home / ".local" / "share"),
                "XDG_STATE_HOME": str(self.home / ".local" / "state"),
                "XDG_CACHE_HOME": str(cache or self.home / ".cache"),
                # pi: no version check, no network; the picker needs no model nor key.
                "PI_OFFLINE": "1",
                "PI_SKIP_VERSION_CHECK": "1",
                "LANG": env.get("LANG") if "UTF-8" in env.get("LANG", "").upper() else "C.UTF-8",
            }
        )
        env.pop("LC_ALL", None)
        return env


def _header_cwd(path: Path) -> str:
    import json

    with path.open("rb") as f:
        return json.loads(f.readline()).get("cwd", "")


def warm_page_cache(data: generate.Dataset) -> None:
    """Read every session once, so that neither side pays for the first read from disk."""
    for path in data.agent_dir.glob("sessions/*/*.jsonl"):
        with path.open("rb") as f:
            while f.read(1 << 22):
                pass


# ------------------------------------------------------------------------------------ tmux


class PaneGone(Exception):
    pass


class Tmux:
    """A private tmux server (its own socket, no config file, no status line) driven through one
    control-mode client, so that polling a pane costs a round trip on a pipe, not a process."""

    def __init__(self, width: int, height: int, env: dict[str, str]) -> None:
        self.width, self.height = width, height
        # A socket of its own in a short temporary folder (socket paths are limited to ~100 bytes).
        self.folder = tempfile.mkdtemp(prefix="pitui-bench-tmux-")
        self.count = 0
        self.live: set[str] = set()
        base = ["tmux", "-S", os.path.join(self.folder, "socket"), "-f", "/dev/null"]
        self.base = base
        env = {k: v for k, v in env.items() if k not in ("TMUX", "TMUX_PANE")}
        subprocess.run(
            [*base, "new-session", "-d", "-s", "keeper", "-x", str(width), "-y", str(height), "sleep 86400"],
            check=True,
            env=env,
        )
        self.client = subprocess.Popen(
            [*base, "-C", "attach", "-t", "keeper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            bufsize=0,
        )
        self._sync()
        for option in ("status off", "remain-on-exit on", "history-limit 100", "exit-empty off"):
            self.cmd(f"set -g {option}")

    def _read_block(self) -> tuple[bool, list[str]]:
        assert self.client.stdout is not None
        lines: list[str] = []
        inside = False
        while True:
            raw = self.client.stdout.readline()
            if not raw:
                raise RuntimeError("the tmux control client ended")
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not inside:
                if line.startswith("%begin"):
                    inside = True
                continue  # notifications between blocks
            if line.startswith("%end") or line.startswith("%error"):
                return line.startswith("%end"), lines
            lines.append(line)

    def _sync(self) -> None:
        """Skip the block of the attach command: read until the answer to a marker."""
        token = f"sync-{time.monotonic_ns()}"
        self._send(f"display -p {token}")
        while True:
            _, lines = self._read_block()
            if lines == [token]:
                return

    def _send(self, line: str) -> None:
        assert self.client.stdin is not None
        self.client.stdin.write(line.encode() + b"\n")

    def cmd(self, line: str) -> list[str]:
        self._send(line)
        ok, lines = self._read_block()
        if not ok:
            raise PaneGone(f"tmux: {line.split()[0]}: {' '.join(lines)}")
        return lines

    def launch(self, cwd: Path, argv: list[str], env: dict[str, str]) -> tuple[str, float]:
        """Start ``argv`` in a new detached session; its name and the clock at launch."""
        self.count += 1
        name = f"pb{os.getpid()}-{self.count}"
        flags = " ".join(f"-e {shlex.quote(f'{k}={v}')}" for k, v in sorted(env.items()))
        line = (
            f"new-session -d -s {name} -x {self.width} -y {self.height} -c {shlex.quote(str(cwd))} "
            f"{flags} -- {' '.join(shlex.quote(a) for a in argv)}"
        )
        self.live.add(name)
        start = time.perf_counter()
        self.cmd(line)
        return name, start

    def screen(self, name: str) -> str:
        return "\n".join(self.cmd(f"capture-pane -p -t {name}:"))

    def info(self, name: str, fmt: str) -> str:
        out = self.cmd(f"display -p -t {name}: {shlex.quote(fmt)}")
        return out[0] if out else ""

    def pane_pid(self, name: str) -> int:
        """The pid of the program in the pane, or 0 when tmux gives none (yet)."""
        answer = self.info(name, "#{pane_pid}")
        return int(answer) if answer.isdigit() else 0

    def keys(self, name: str, *keys: str) -> None:
        self.cmd(f"send-keys -t {name}: {' '.join(keys)}")

    def wait_for(
        self, name: str, ready: Callable[[str], bool], start: float, poll: float, timeout: float
    ) -> tuple[float, str]:
        """Poll the pane until ``ready(screen)``: seconds since ``start`` (the clock when the
        screen that passed was received) and that screen."""
        next_tick = time.perf_counter()
        polls = 0
        while True:
            text = self.screen(name)
            now = time.perf_counter()
            if ready(text):
                return now - start, text
            if "Failed to load sessions" in text:  # both pickers' words for a listing that failed
                said = next(line.strip() for line in text.splitlines() if "Failed to load sessions" in line)
                raise PaneGone(f"{said}; the screen:\n{text}")
            polls += 1
            if polls % 20 == 0 and self.info(name, "#{pane_dead}") == "1":
                raise PaneGone(f"the program ended: {self.info(name, '#{pane_dead_status}')}\n{text}")
            if now - start > timeout:
                raise TimeoutError(f"nothing after {timeout:.0f}s; the screen:\n{text}")
            next_tick += poll
            delay = next_tick - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            else:
                next_tick = time.perf_counter()

    def end(self, name: str, quit_keys: tuple[str, ...], grace: float = 3.0) -> None:
        """Ask the program to quit, wait for it (and its children), then kill the session."""
        pid = 0
        with contextlib.suppress(PaneGone, ValueError):
            pid = int(self.info(name, "#{pane_pid}"))
            if quit_keys:
                self.keys(name, *quit_keys)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and self.info(name, "#{pane_dead}") != "1":
                time.sleep(0.02)
        family = _descendants(pid) if pid else []
        with contextlib.suppress(PaneGone):
            self.cmd(f"kill-session -t {name}")
        self.live.discard(name)
        deadline = time.monotonic() + 5
        for p in [pid, *family]:
            while p and _alive(p) and time.monotonic() < deadline:
                time.sleep(0.02)

    def close(self) -> None:
        for name in list(self.live):
            with contextlib.suppress(Exception):
                self.cmd(f"kill-session -t {name}")
        with contextlib.suppress(Exception):
            if self.client.stdin:
                self.client.stdin.close()
            self.client.wait(timeout=2)
        subprocess.run([*self.base, "kill-server"], stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


def _proc_table() -> dict[int, tuple[int, float, float]]:
    """pid -> (ppid, own cpu s, reaped children's cpu s), from /proc (Linux only)."""
    tick = os.sysconf("SC_CLK_TCK")
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(entry)] = (
            int(fields[1]),
            (int(fields[11]) + int(fields[12])) / tick,
            (int(fields[13]) + int(fields[14])) / tick,
        )
    return table


def _descendants(pid: int, table: dict[int, tuple[int, float, float]] | None = None) -> list[int]:
    if not os.path.isdir("/proc"):
        return []
    table = table if table is not None else _proc_table()
    children: dict[int, list[int]] = {}
    for p, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(p)
    out, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def tree_cpu(pid: int) -> float | None:
    """CPU seconds used so far by a process, its live descendants and the children it reaped."""
    if not os.path.isdir("/proc"):
        return None
    table = _proc_table()
    if pid not in table:
        return None
    total = table[pid][1] + table[pid][2]
    for child in _descendants(pid, table):
        total += table[child][1] + table[child][2]
    return round(total, 3)


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


def search_bench(layout: Layout, work: Path, keystrokes: int, query: str, size: tuple[int, int]) -> dict:
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
    ]
    proc = subprocess.run(cmd, cwd=layout.cwd, env=env, capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = proc.stderr.strip().splitlines()[-3:]
        log("  search failed: " + " | ".join(tail))
        return {"error": f"exit status {proc.returncode}: " + " | ".join(tail)}
    return json.loads(lines[-1])


def search_child(keystrokes: int, query: str, size: tuple[int, int], expect: int) -> int:
    import json

    print(json.dumps(asyncio.run(_search_keystrokes(keystrokes, query, size, expect))))
    return 0


async def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"waited {timeout:.0f}s for {what}")
        await asyncio.sleep(0.001)


async def _search_keystrokes(keystrokes: int, query: str, size: tuple[int, int], expect: int) -> dict:
    """One keystroke = from the key event handed to the app (as the terminal driver hands it)
    until the first frame drawn after the list got its new rows.

    Frames are the screen updates Textual composes (``App._display``, called for every update
    even headless, where it then writes nothing): each is timestamped with the list's rows
    object at that moment. ``SessionList.set_rows`` makes a new rows object, so the first
    frame showing a new object is the redraw with the filtered rows. The picker's own parts
    are timed too: ``Catalog.search`` (in the search worker) and the debounce before it, if the
    picker has one (``SEARCH_DELAY_S``; 0 without).
    """
    from textual import events

    from pitui.ui.app import PituiApp
    from pitui.ui.screens.picker import PickerScreen
    from pitui.ui.widgets.picker_header import PickerHeader

    app = PituiApp(cwd=os.getcwd(), scope="all", watch=False)
    frames: list[tuple[float, object]] = []
    searches: list[float] = []
    out: dict = {"query": query, "size": f"{size[0]}x{size[1]}"}
    async with app.run_test(size=size) as pilot:
        started = time.perf_counter()
        await _until(lambda: isinstance(app.screen, PickerScreen), 30, "the picker")
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        listing = picker.session_list
        header = picker.query_one(PickerHeader)

        def listed() -> bool:
            if header.status is not None and header.status[1]:
                raise RuntimeError(f"the picker says: {header.status[0]}")
            return len(listing.rows) == expect and header.loading is False

        await _until(listed, 300, f"{expect} rows listed")
        out["listed_s"] = round(time.perf_counter() - started, 3)
        t = time.perf_counter()
        catalog = app.catalog
        await asyncio.to_thread(catalog.build_index)
        out["index_s"] = round(time.perf_counter() - t, 3)
        out["debounce_ms"] = round(getattr(PickerScreen, "SEARCH_DELAY_S", 0) * 1000, 1)

        display = app._display

        def frame(screen: object, renderable: object) -> None:
            if renderable is not None:
                frames.append((time.perf_counter(), listing.rows))
            display(screen, renderable)  # type: ignore[arg-type]

        app._display = frame  # type: ignore[method-assign]
        search = catalog.search

        def timed_search(*args: object, **kwargs: object) -> object:
            t = time.perf_counter()
            try:
                return search(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                searches.append(time.perf_counter() - t)

        catalog.search = timed_search  # type: ignore[method-assign]

        async def settle() -> None:
            # Let the snippet workers and the preview finish, so that keystrokes do not overlap.
            await pilot.pause(0.25)
            await app.workers.wait_for_complete()
            await pilot.pause(0.05)

        async def new_rows(before: object, start: float) -> float:
            def drawn() -> bool:
                return any(rows is not before and t >= start for t, rows in frames)

            await _until(drawn, 30, "the filtered rows")
            return next(t for t, rows in frames if rows is not before and t >= start) - start

        latencies: list[float] = []
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
                start = time.perf_counter()
                app._driver.send_message(events.Key(key, char))  # type: ignore[union-attr]
                latencies.append(await new_rows(before, start))
                counts.append(len(listing.rows))
                await settle()
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
            "target_ms": TARGETS["search_ms"],
            "ok": statistics.median(ms) <= TARGETS["search_ms"],
            "catalog_search_median_ms": round(statistics.median(searches) * 1000, 1) if searches else None,
            "runs_ms": [round(x * 1000, 1) for x in latencies],
            "rows": counts,
        }
    )
    return out


# ------------------------------------------------------------------------------------ main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data (200 sessions in 12 folders)")
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
        return search_child(args.keystrokes, args.query, (width, height), args.expect)
    only = set(args.only.split(",")) if args.only else set(MEASUREMENTS)
    if unknown := only - set(MEASUREMENTS):
        ap.error(f"unknown measurement(s): {', '.join(sorted(unknown))}")
    if shutil.which("tmux") is None and only - {"search"}:
        raise SystemExit("tmux is not installed")
    pi = pi16()

    preset = "quick" if args.quick else "full"
    data = generate.ensure(preset, args.out, log=log)
    log(f"data: {data.sessions} sessions ({data.tree_bytes / 1e6:.0f} MB) in {data.agent_dir}")
    warm_page_cache(data)
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
            results["search"] = search_bench(layout, work, args.keystrokes, args.query, (width, height))
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
