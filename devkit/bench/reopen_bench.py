"""Reopening the big generated session from its index, in one process: the whole read, the
reopen of the unchanged file, and of the file grown by a few entries (a copy, so the data set
is left as generated).

    python -m devkit.bench.reopen_bench [-n 5] [--quick] [--out DIR]

A script, not a test: one JSON object on stdout. See devkit/bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from devkit.bench import generate
from pitui.store.reader import Session
from pitui.store.session_index import IndexCache, index_files


def timed(load, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        load()
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="the small data set (10,000 entries)")
    ap.add_argument("--out", type=Path, help="data cache folder (default $TMPDIR/pitui-bench)")
    args = ap.parse_args(argv)
    data = generate.ensure("quick" if args.quick else "full", args.out, log=lambda m: print(m, file=sys.stderr))
    report: dict = {"entries": data.big_entries, "mb": round(data.big_bytes / 1e6, 1)}
    report["load_average_before"] = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="pitui-reopen-") as tmp:
        big = Path(tmp) / data.big.name
        shutil.copyfile(data.big, big)
        cache = IndexCache(str(Path(tmp) / "index"), deferred=True)  # written apart from the loads timed
        whole = timed(lambda: Session.load(str(big)), args.runs)
        write = timed(lambda: (Session.load(str(big), index=cache), cache.write_pending()), 1)  # miss + write
        (index,) = index_files(cache.directory)
        hit = timed(lambda: Session.load(str(big), index=cache), args.runs)
        assert cache.last == "hit"
        tail = big.read_bytes()[-20_000:]
        grown_times = []
        for _ in range(args.runs):
            with open(big, "ab") as out:  # pi writes on: the last lines again (new ids not needed here)
                out.write(tail[tail.index(b"\n") + 1 :])
            grown_times += timed(lambda: Session.load(str(big), index=cache), 1)
            assert cache.last == "grown"
        report.update(
            whole_read_s=round(statistics.median(whole), 3),
            miss_and_write_s=round(write[0], 3),
            index_bytes=os.path.getsize(index),
            reopen_s=round(statistics.median(hit), 3),
            reopen_runs_s=[round(t, 3) for t in hit],
            reopen_grown_s=round(statistics.median(grown_times), 3),
            load_average_after=round(os.getloadavg()[0], 2),
        )
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
