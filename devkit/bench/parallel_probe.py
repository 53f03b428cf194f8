"""A probe, not a feature: would reading the second half of a big session in a forked worker
(its entries sent back as msgpack) make ``Session.load`` faster? Prints the load's time read in
one process and read with one worker, taking turns, and the worker's wait.

    python -m devkit.bench.parallel_probe [-n 3] [FILE]

The worker's half is read with the reader's own loop (``Session._from_bytes`` a block at a time,
as :mod:`pitui.store.blocks` does), its entries encoded with msgspec's msgpack (``MISSING`` as
an extension), decoded here, renumbered and given this process's line source. No problems,
unparsed lines or index are merged: this times the transfer, it is not a reader.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec
import orjson

from devkit.bench import generate
from pitui.store import blocks, tuning
from pitui.store.js import MISSING
from pitui.store.model import Entry, LineSource
from pitui.store.reader import Session


def _enc_hook(value: Any) -> Any:
    if value is MISSING:
        return msgspec.msgpack.Ext(1, b"")
    raise NotImplementedError(type(value))


def _read(path: str, fd: int, header: dict, start: int, stop: int, number: int) -> tuple[list[Entry], int]:
    source = LineSource(path, fd)
    entries: list[Entry] = []
    while start < stop:
        data = os.pread(fd, min(tuning.READ_BLOCK_BYTES, stop - start), start)
        cut = blocks._boundary(data, stop - start)
        assert cut is not None
        more = Session._from_bytes(data, path, False, source, header, start, number, index=False, end=cut)
        entries += more.entries
        number, start = more.next_line, start + cut
    return entries, number


def _worker(path: str, header: dict, start: int, stop: int) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    with tuning.gc_paused():
        entries, _ = _read(path, fd, header, start, stop, 1)
        for entry in entries:
            entry._source = None
        return msgspec.msgpack.Encoder(enc_hook=_enc_hook).encode(entries)


def load(path: str, pool: ProcessPoolExecutor | None) -> tuple[float, float, int]:
    """(seconds, of which waiting for the worker, entries)."""
    started = time.perf_counter()
    size = os.stat(path).st_size
    fd = os.open(path, os.O_RDONLY)
    head = os.pread(fd, 1 << 16, 0)
    first = head.find(b"\n") + 1
    header = orjson.loads(head[: first - 1])
    middle = size // 2 + os.pread(fd, 1 << 20, size // 2).find(b"}\n") + 2
    waited = 0.0
    with tuning.gc_paused():
        future = pool.submit(_worker, path, header, middle, size) if pool else None
        entries, number = _read(path, fd, header, first, middle if pool else size, 2)
        if future is not None:
            before = time.perf_counter()
            blob = future.result()
            waited = time.perf_counter() - before
            rest = msgspec.msgpack.Decoder(list[Entry], ext_hook=lambda code, data: MISSING).decode(blob)
            source, shift = entries[0]._source, number - 1
            for entry in rest:
                entry._source = source
                entry.line += shift
            entries += rest
    return time.perf_counter() - started, waited, len(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", type=Path)
    parser.add_argument("-n", type=int, default=3)
    args = parser.parse_args(argv)
    path = str(args.file or generate.ensure("full").big)
    serial, parallel, waits = [], [], []
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        pool.submit(int).result()  # the worker forked before the first timing
        for _ in range(args.n):
            serial.append(load(path, None)[0])
            seconds, waited, _ = load(path, pool)
            parallel.append(seconds)
            waits.append(waited)
    report = {
        "file": path,
        "one_process_s": round(statistics.median(serial), 3),
        "one_worker_s": round(statistics.median(parallel), 3),
        "worker_wait_s": round(statistics.median(waits), 3),
        "runs": {"one_process": [round(s, 3) for s in serial], "one_worker": [round(s, 3) for s in parallel]},
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
