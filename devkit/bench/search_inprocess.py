"""A search keystroke inside one process: ``Catalog.search`` over the 2,000 sessions of the bench
folder for each prefix of the query, without the full-text index and with it, medians of N.

    python -m devkit.bench.search_inprocess [--quick] [-n 5] [--query TEXT]

In-process figures (no app, no drawing: ``picker_bench.py --only search`` times the keystroke
to the frame). The cache is made in a temporary folder; the texts are read into memory first
(``prepare_search``), as the picker does after its listing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from devkit.bench import generate
from pitui.store.catalog import Catalog


def _keystrokes(catalog: Catalog, infos: list, query: str, runs: int) -> dict[str, float]:
    times: list[float] = []
    for _ in range(runs):
        for end in range(1, len(query) + 1):
            started = time.perf_counter()
            catalog.search(query[:end], infos, snippets=20)
            times.append(time.perf_counter() - started)
    times.sort()
    return {
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p90_ms": round(times[int(len(times) * 0.9)] * 1000, 1),
        "max_ms": round(times[-1] * 1000, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int, default=5)
    parser.add_argument("--query", default=generate.SEARCH_QUERY)
    args = parser.parse_args(argv)
    data = generate.ensure("quick" if args.quick else "full")
    report: dict[str, object] = {"sessions": data.sessions, "query": args.query, "runs": args.n}
    with tempfile.TemporaryDirectory() as cache:
        catalog = Catalog(data.agent_dir, cache_dir=cache)
        infos = catalog.list_all()
        catalog.prepare_search(infos)
        report["without_index"] = _keystrokes(catalog, infos, args.query, args.n)
        started = time.perf_counter()
        catalog.build_index()
        report["index_build_s"] = round(time.perf_counter() - started, 2)
        report["index_mb"] = round(os.path.getsize(catalog.db_path) / 1e6, 1)
        report["with_index"] = _keystrokes(catalog, infos, args.query, args.n)
        report["hits"] = len(catalog.search(args.query, infos))
        catalog.close()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
