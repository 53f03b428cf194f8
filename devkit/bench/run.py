"""pitui against pi's own SessionManager, in one run, on the same generated data.

pi is pi 1.6.0 on Node 22 (what people run), with pi 0.73.1 (on the same Node) as a second
column unless ``--no-073``. Every measurement is a whole process, timed from launch to exit
(what a user waits for), run N times (median), pitui and the pis taking turns. Peak memory is
the child's ru_maxrss (os.wait4).

    python -m devkit.bench.run [--quick] [-n 3] [--only open,list_all_cold,...] [--out DIR] [--no-073]

Prints one JSON object on stdout; progress goes to stderr. See devkit/bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from devkit.bench import bytecode, generate
from devkit.env import PI_073, REPO, Pi, locate_pi, pi16, tool_versions

BENCH = Path(__file__).resolve().parent
PI_BENCH = BENCH / "pi_bench.mjs"

# Targets from the performance issue: pitui's time (or memory) as a fraction of pi 1.6.0's.
TARGETS = {
    "open": 0.2,
    "open_again": None,  # the same session again: from its index in the cache the open left
    "list_all_cold": 0.2,
    "list_all_warm": 0.03,
    "search": None,
    "memory": 0.4,
}
MEASUREMENTS = ("open", "open_again", "list_all_cold", "list_all_warm", "search")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Result:
    wall_s: float
    maxrss_mb: float
    cpu_s: float
    returncode: int
    stdout: bytes = b""
    stderr: bytes = b""


def run_process(cmd: Sequence[str], env: dict[str, str], *, capture: bool, cwd: Path | None = None) -> Result:
    """Run a command and return its wall-clock time from launch to exit and its peak RSS."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        stdout = out if capture else subprocess.DEVNULL
        start = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=stdout, stderr=err, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        # ru_maxrss is in kilobytes on Linux, bytes on macOS.
        rss = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
        cpu = usage.ru_utime + usage.ru_stime  # the child and the children it waited for
        return Result(wall, rss, cpu, proc.returncode, out.read() if capture else b"", err.read())


def pitui_command() -> tuple[list[str], dict[str, str]]:
    """The ``pitui`` a user starts: the command installed beside this interpreter (the venv this
    script runs in), else one on PATH, else this interpreter with ``-m pitui`` from the repo
    (``-m`` adds runpy's start-up, about 5 ms, that the installed command does not pay)."""
    beside = Path(sys.executable).parent / "pitui"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)], {}
    exe = shutil.which("pitui")
    if exe:
        return [exe], {}
    return [sys.executable, "-m", "pitui"], {"PYTHONPATH": str(REPO)}


@dataclass
class Side:
    times: list[float] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    in_process: list[float] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    error: str | None = None

    def record(self, r: Result, label: str) -> bool:
        if r.returncode != 0:
            tail = r.stderr.decode(errors="replace").strip().splitlines()[-5:]
            self.error = f"{label} exited with {r.returncode}: " + " | ".join(tail)
            log("  " + self.error)
            return False
        self.times.append(r.wall_s)
        self.rss.append(r.maxrss_mb)
        self.cpu.append(r.cpu_s)
        return True

    def last(self) -> str:
        if self.error is not None or not self.times:
            return "-"
        return f"{self.times[-1]:.3f}s {self.rss[-1]:.0f}MB"

    def median(self) -> float | None:
        return round(statistics.median(self.times), 3) if self.times else None

    def median_rss(self) -> float | None:
        return round(statistics.median(self.rss), 1) if self.rss else None

    def median_cpu(self) -> float | None:
        return round(statistics.median(self.cpu), 3) if self.cpu else None


def _count(stdout: bytes) -> int | None:
    try:
        data = json.loads(stdout)
    except ValueError:
        return None
    if isinstance(data, list):
        return len(data)
    if isinstance(data, dict):
        for key in ("sessions", "results", "matches", "items"):
            if isinstance(data.get(key), list):
                return len(data[key])
    return None


class Bench:
    def __init__(self, data: generate.Dataset, n: int, work: Path, pis: list[Pi]) -> None:
        self.data = data
        self.n = n
        self.work = work
        self.pis = pis  # pi 1.6.0 first: the reference of every ratio
        self.pitui, pitui_env = pitui_command()
        self.env = dict(os.environ)
        self.env.update(pitui_env)
        self.env["PI_CODING_AGENT_DIR"] = str(data.agent_dir)
        self.env.pop("PI_CODING_AGENT_SESSION_DIR", None)
        self.env["NO_COLOR"] = "1"
        self.cache_count = 0
        self.warm_cache: Path | None = None

    def fresh_cache(self) -> Path:
        self.cache_count += 1
        path = self.work / f"xdg-cache-{self.cache_count}"
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path

    def env_with(self, cache: Path | None) -> dict[str, str]:
        env = dict(self.env)
        env["XDG_CACHE_HOME"] = str(cache or self.fresh_cache())
        return env

    def pair(self, name: str, pitui_args: list[str], pi_args: list[str], *, cache: str) -> dict:
        """Run pitui and each pi in turns, n times each. cache: "fresh" (a new empty XDG cache
        for every pitui run) or "warm" (the cache the previous measurement left)."""
        log(f"{name}:")
        pt = Side()
        sides = [Side() for _ in self.pis]
        capture = not name.startswith("open")  # inspect --json goes to /dev/null; listings are counted
        for i in range(self.n):
            if cache == "fresh":
                env = self.env_with(None)
                self.warm_cache = Path(env["XDG_CACHE_HOME"])
            else:
                env = self.env_with(self.warm_cache)
            if pt.error is None:
                r = run_process([*self.pitui, *pitui_args], env, capture=capture)
                if pt.record(r, "pitui") and capture:
                    count = _count(r.stdout)
                    if count is not None:
                        pt.counts.append(count)
            for pi, side in zip(self.pis, sides, strict=True):
                if side.error is not None:
                    continue
                r = run_process(pi.script(PI_BENCH, *pi_args), {**env, **pi.env()}, capture=True)
                if side.record(r, f"pi {pi.version}"):
                    info = json.loads(r.stdout)
                    side.in_process.append(info["in_process_s"])
                    for key in ("matches", "sessions", "entries"):
                        if key in info:
                            side.counts.append(info[key])
                            break
            shown = "  ".join(f"pi {pi.version} {side.last()}" for pi, side in zip(self.pis, sides, strict=True))
            log(f"  run {i + 1}: pitui {pt.last()}  {shown}")
        out = self.summary(name, pt, sides[0])
        for pi, side in zip(self.pis[1:], sides[1:], strict=True):
            out[f"pi_{pi.version}"] = self.other(pt, side)
        return out

    @staticmethod
    def other(pt: Side, pi: Side) -> dict:
        """A second pi's column: its medians and pitui's ratios to them."""
        p, q = pt.median(), pi.median()
        a, b = pt.median_rss(), pi.median_rss()
        out: dict = {
            "pi_s": q,
            "ratio": round(p / q, 3) if p is not None and q else None,
            "pi_mb": b,
            "ratio_mb": round(a / b, 3) if a and b else None,
            "pi_cpu_s": pi.median_cpu(),
            "pi_runs_s": [round(t, 3) for t in pi.times],
        }
        if pi.counts:
            out["pi_count"] = pi.counts[-1]
        if pi.error:
            out["pi_error"] = pi.error
        return out

    @staticmethod
    def summary(name: str, pt: Side, pi: Side) -> dict:
        p, q = pt.median(), pi.median()
        ratio = round(p / q, 3) if p is not None and q else None
        target = TARGETS.get(name)
        out: dict = {
            "pitui_s": p,
            "pi_s": q,
            "ratio": ratio,
            "target": target,
            "ok": (ratio <= target) if ratio is not None and target is not None else None,
            "pitui_mb": pt.median_rss(),
            "pi_mb": pi.median_rss(),
            "pitui_cpu_s": pt.median_cpu(),
            "pi_cpu_s": pi.median_cpu(),
            "pi_in_process_s": round(statistics.median(pi.in_process), 3) if pi.in_process else None,
            "pitui_runs_s": [round(t, 3) for t in pt.times],
            "pi_runs_s": [round(t, 3) for t in pi.times],
        }
        if pt.counts or pi.counts:
            out["pitui_count"] = pt.counts[-1] if pt.counts else None
            out["pi_count"] = pi.counts[-1] if pi.counts else None
        for side, s in (("pitui", pt), ("pi", pi)):
            if s.error:
                out[f"{side}_error"] = s.error
        return out


def warm_page_cache(data: generate.Dataset) -> None:
    """Read every file once, so that neither side pays for the first read from disk."""
    files = [data.big, *data.agent_dir.glob("sessions/*/*.jsonl")]
    for path in files:
        with path.open("rb") as f:
            while f.read(1 << 22):
                pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data (10,000 entries, 200 sessions)")
    ap.add_argument("--preset", choices=sorted(generate.PRESETS), help="a data preset by name (10k: 10,000 sessions)")
    ap.add_argument("-n", "--runs", type=int, default=3, help="runs per measurement and side (median)")
    ap.add_argument("--only", help="comma-separated: " + ",".join(MEASUREMENTS))
    ap.add_argument("--out", type=Path, help="data cache folder (default $TMPDIR/pitui-bench)")
    ap.add_argument("--query", default=generate.SEARCH_QUERY, help="search query")
    ap.add_argument("--keep", action="store_true", help="keep the XDG cache folders pitui made")
    ap.add_argument("--no-073", action="store_true", help="pi 1.6.0 only, without the pi 0.73.1 column")
    args = ap.parse_args(argv)
    only = set(args.only.split(",")) if args.only else set(MEASUREMENTS)
    unknown = only - set(MEASUREMENTS)
    if unknown:
        ap.error(f"unknown measurement(s): {', '.join(sorted(unknown))}")
    if "list_all_warm" in only or "search" in only:
        only.add("list_all_cold")  # leaves the warm cache behind

    preset = args.preset or ("quick" if args.quick else "full")
    data = generate.ensure(preset, args.out, log=log)
    log(f"data: {data.big} ({data.big_bytes / 1e6:.0f} MB), {data.sessions} sessions ({data.tree_bytes / 1e6:.0f} MB)")
    warm_page_cache(data)
    bytecode.ensure_compiled()
    work = data.root / "run"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    pis = [pi16()]
    if not args.no_073:
        old = locate_pi(PI_073)
        if isinstance(old, str):
            log(f"no pi {PI_073} column: {old}")
        else:
            pis.append(old)
    versions = tool_versions(pis=tuple(pis))
    load_before = os.getloadavg()[0]
    bench = Bench(data, args.runs, work, pis)
    log(f"pitui: {' '.join(bench.pitui)}")
    for pi in pis:
        log(f"pi {pi.version}: {pi.node} {pi.package}")

    results: dict = {}
    big = str(data.big)
    if "open" in only:
        results["open"] = bench.pair("open", ["inspect", big, "--json"], ["open", big], cache="fresh")
    if "open_again" in only:
        if "open" not in only:  # the session's index is made by an open before these
            env = bench.env_with(None)
            bench.warm_cache = Path(env["XDG_CACHE_HOME"])
            run_process([*bench.pitui, "inspect", big, "--json"], env, capture=False)
        results["open_again"] = bench.pair("open_again", ["inspect", big, "--json"], ["open", big], cache="warm")
    if "list_all_cold" in only:
        results["list_all_cold"] = bench.pair("list_all_cold", ["ls", "--all", "--json"], ["listAll"], cache="fresh")
    if "list_all_warm" in only:
        results["list_all_warm"] = bench.pair("list_all_warm", ["ls", "--all", "--json"], ["listAll"], cache="warm")
    if "search" in only:
        # The first search may build a full-text index; it is timed apart and not in the median.
        env = bench.env_with(bench.warm_cache)
        first = run_process([*bench.pitui, "search", args.query, "--all", "--json"], env, capture=True)
        results["search"] = bench.pair(
            "search",
            ["search", args.query, "--all", "--json"],
            ["search", args.query],
            cache="warm",
        )
        results["search"]["pitui_first_s"] = round(first.wall_s, 3)
    if "open" in results:
        o = results["open"]
        ratio = round(o["pitui_mb"] / o["pi_mb"], 3) if o["pitui_mb"] and o["pi_mb"] else None
        results["memory"] = {
            "what": "peak RSS of open",
            "pitui_mb": o["pitui_mb"],
            "pi_mb": o["pi_mb"],
            "ratio": ratio,
            "target": TARGETS["memory"],
            "ok": ratio <= TARGETS["memory"] if ratio is not None else None,
        }
        for pi in pis[1:]:
            col = o.get(f"pi_{pi.version}", {})
            results["memory"][f"pi_{pi.version}"] = {"pi_mb": col.get("pi_mb"), "ratio": col.get("ratio_mb")}

    report = {
        "preset": preset,
        "runs": args.runs,
        "data": {
            "big_file": big,
            "big_mb": round(data.big_bytes / 1e6, 1),
            "big_entries": data.big_entries,
            "agent_dir": str(data.agent_dir),
            "sessions": data.sessions,
            "sessions_mb": round(data.tree_bytes / 1e6, 1),
            "query": args.query,
        },
        "pitui_command": bench.pitui,
        "pi": {pi.version: {"node": pi.node, "package": str(pi.package)} for pi in pis},
        "versions": versions,
        # Other work on the machine inflates wall times: the 1-minute load average before and after.
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        **results,
        "children_cpu_s": round(
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
            + resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime,
            1,
        ),
    }
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
