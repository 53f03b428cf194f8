"""Entry search keystrokes over the 2,000 sessions of the bench folder: each prefix of a few
typed queries, as the Find entries screen asks (``limit`` a screenful), timed to the first
screenful of hits (or the end, when there are fewer), warm (texts read once) and with the
full-text index; and the first keystrokes on a cold cache (nothing read yet, no index).

    python -m devkit.bench.entry_search_bench [--quick] [-n 3] [--limit 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

from devkit.bench import generate
from pitui.store.catalog import Catalog
from pitui.store.catalog.entry_search import EntrySearch

QUERIES = ("websocket reconnect", '"flaky network"', "cache key", "Retry", "re:time.?out")


def _first_screen(searcher: EntrySearch, query: str, infos: list, limit: int, screen: int) -> float:
    started = time.perf_counter()
    for results in searcher.search(query, infos, limit=limit):
        if len(results.hits) >= screen or results.done:
            break
    return time.perf_counter() - started


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p90_ms": round(times[int(len(times) * 0.9)] * 1000, 1),
        "max_ms": round(times[-1] * 1000, 1),
        "keystrokes": len(times),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("-n", type=int, default=3)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--screen", type=int, default=15, help="hits on one screen")
    args = parser.parse_args(argv)
    data = generate.ensure("quick" if args.quick else "full")
    report: dict[str, object] = {"sessions": data.sessions, "queries": QUERIES, "runs": args.n}
    with tempfile.TemporaryDirectory() as cache:
        catalog = Catalog(data.agent_dir, cache_dir=cache)
        infos = catalog.list_all()
        cold = EntrySearch(catalog)
        report["cold_first_keystrokes"] = _percentiles(
            [_first_screen(cold, QUERIES[0][:end], infos, args.limit, args.screen) for end in range(1, 4)]
        )
        for label, index in (("warm_without_index", False), ("warm_with_index", True)):
            if index:
                catalog.build_index()
            searcher = EntrySearch(catalog)
            for query in QUERIES:  # read every text once, as the first keystrokes do
                _first_screen(searcher, query, infos, args.limit, args.screen)
            times = [
                _first_screen(searcher, query[:end], infos, args.limit, args.screen)
                for _ in range(args.n)
                for query in QUERIES
                for end in range(1, len(query) + 1)
                if query[:end] != "re:"[:end]  # (an empty pattern is refused, not searched)
            ]
            report[label] = _percentiles(times)
        whole = EntrySearch(catalog)
        report["hits"] = {q: len(list(whole.search(q, infos))[-1].hits) for q in QUERIES}
        catalog.close()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
