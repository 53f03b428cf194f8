"""A private tmux server driven through one control-mode client, and the CPU time of the process
tree a pane runs (from /proc): what the benchmarks that time full-screen programs run them in."""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


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
            bufsize=0,  # each command goes out as it is written
        )
        assert self.client.stdout is not None
        # Answers read through a buffer: the raw pipe's readline reads one byte per system
        # call, which made each poll of a 120x40 pane about 2 ms of this process's CPU (38% of
        # a core at a poll every 5 ms, taken from the programs measured on a 2-core machine).
        self._answers = io.BufferedReader(self.client.stdout, 1 << 16)
        self._sync()
        for option in ("status off", "remain-on-exit on", "history-limit 100", "exit-empty off"):
            self.cmd(f"set -g {option}")

    def _read_block(self) -> tuple[bool, list[str]]:
        lines: list[str] = []
        inside = False
        while True:
            raw = self._answers.readline()
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


@dataclass
class Launches:
    """The timed launches of one program: seconds to its ready screen, CPU seconds by then
    (``/proc``), and the first line of what went wrong in the launches that failed."""

    times: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def report(self, command: str) -> dict:
        out: dict = {
            "wall_s": round(statistics.median(self.times), 3) if self.times else None,
            "runs_s": [round(t, 3) for t in self.times],
            "cpu_s": round(statistics.median(self.cpus), 3) if self.cpus else None,
            "command": command,
        }
        if self.errors:
            out["errors"] = self.errors
        return out


def time_launches(
    tmux: Tmux,
    runs: int,
    launch: Callable[[int], tuple[str, float]],
    ready: Callable[[str], bool],
    quit_keys: tuple[str, ...],
    timeout: float,
    linger: Callable[[int], float] = lambda i: 0.0,
) -> Launches:
    """``runs + 1`` launches (``launch(i)``: the session's name and the clock at launch), each
    polled until ``ready``; the first is untimed (the program's files into the page cache).
    ``linger(i)``: seconds to leave launch ``i`` running once ready, before ``quit_keys``."""
    out = Launches()
    for i in range(runs + 1):
        name, start = launch(i)
        try:
            pid = tmux.pane_pid(name)
            elapsed, _ = tmux.wait_for(name, ready, start, 0.005, timeout)
            pid = pid or tmux.pane_pid(name)  # none yet at launch, at times
            cpu = tree_cpu(pid) if pid else None
            if i:
                out.times.append(elapsed)
                if cpu is not None:
                    out.cpus.append(cpu)
        except (TimeoutError, PaneGone) as error:
            out.errors.append(str(error).strip().splitlines()[0])
        finally:
            time.sleep(linger(i))
            tmux.end(name, quit_keys)
            time.sleep(0.3)
    return out
