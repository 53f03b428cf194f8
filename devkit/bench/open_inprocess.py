"""The open of a big session timed inside one process: ``Session.load`` alone, and the two ways of
decoding its lines (orjson of every line, the line index's msgspec decoding), medians of N.

    python -m devkit.bench.open_inprocess [--quick] [-n 5] [FILE]

In-process figures: no interpreter start, no imports, no output (``run.py`` times whole
processes). The garbage collector is paused around each run, as the command line does
(``tuning.gc_paused``).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from devkit.bench import generate
from pitui.store import fastline, tuning
from pitui.store.jsonl import split_lines
from pitui.store.reader import Session


def _median(runs: int, work: Callable[[], object]) -> tuple[float, list[float]]:
    times = []
    for _ in range(runs):
        with tuning.gc_paused():
            started = time.perf_counter()
            work()
            times.append(time.perf_counter() - started)
        gc.collect()
    return statistics.median(times), times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args(argv)
    path = args.file or Path(generate.ensure("quick" if args.quick else "full").big)
    data = path.read_bytes()
    lines = [line for _, _, line in split_lines(data)]
    loads, decode = orjson.loads, fastline.decode_line
    report: dict[str, object] = {"file": str(path), "bytes": len(data), "lines": len(lines), "runs": args.n}
    for key, work in (
        ("orjson_every_line_s", lambda: [loads(line) for line in lines]),
        ("msgspec_line_index_s", lambda: [decode(line) for line in lines]),
        ("session_load_s", lambda: Session.load(str(path))),
    ):
        median, times = _median(args.n, work)
        report[key] = round(median, 3)
        report[key.replace("_s", "_runs_s")] = [round(t, 3) for t in times]
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
