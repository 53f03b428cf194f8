"""Time ``Catalog.usage`` (where the tokens went) over the bench data: cold (a new cache: every
file read) and warm (from the cache), after a listing of every project.

    python -m devkit.bench.usage_bench [--data /tmp/pitui-bench/full] [-n 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from pitui.store.catalog import Catalog
from pitui.store.usage_report import usage_report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "pitui-bench", "full"))
    parser.add_argument("-n", type=int, default=3, help="runs of each, the median printed")
    args = parser.parse_args()
    agent = os.path.join(args.data, "agent")
    cold: list[float] = []
    warm: list[float] = []
    for _ in range(args.n):
        with tempfile.TemporaryDirectory() as cache, Catalog(agent_dir=agent, cache_dir=cache) as catalog:
            infos = catalog.list_all()
            start = time.perf_counter()
            usage = catalog.usage(infos)
            usage_report(infos, usage, "day")
            cold.append(time.perf_counter() - start)
            start = time.perf_counter()
            usage = catalog.usage(infos)
            for by in ("day", "project", "model"):
                report = usage_report(infos, usage, by)  # type: ignore[arg-type]
            warm.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "sessions": len(infos),
                "with_usage": len(report.total.sessions),
                "cold_s": round(statistics.median(cold), 3),
                "warm_s": round(statistics.median(warm), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
