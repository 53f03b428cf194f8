"""How pitui's and pi's figures grow with the data: the open from 1,000 to 1,000,000 entries, the
listings from 100 to 10,000 sessions. A script, not a test: it prints figures, never fails on them.

Each row is one ``devkit.bench.run`` of the preset that has that size, with its measurements
only, so pitui and pi 1.6.0 take turns on the same files in the same run:

    python -m devkit.bench.scaling              # every size, 3 runs each
    python -m devkit.bench.scaling -n 1 --sizes 1k,quick,full
    python -m devkit.bench.scaling --json       # the reports, as one JSON object

| preset | big session | sessions | measured here |
|---|---|---|---|
| ``1k`` | 1,000 entries | 100 | open, list all cold and warm |
| ``quick`` | 10,000 entries | 200 | open, list all cold and warm |
| ``full`` | 100,000 entries | 2,000 | open, list all cold and warm |
| ``10k`` | (10,000 entries) | 10,000 | list all cold and warm |
| ``1g`` | 1,000,000 entries | (50) | open |

``1k`` is this script's own preset: it is added to the generator's table when the script runs,
not written into ``generate.py``, whose bytes key the cache of every data set (a new preset
there would make ``full`` and ``1g`` be generated again).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from typing import Any

from devkit.bench import generate, run

SIZES: dict[str, tuple[str, ...]] = {
    "1k": ("open", "list_all_cold", "list_all_warm"),
    "quick": ("open", "list_all_cold", "list_all_warm"),
    "full": ("open", "list_all_cold", "list_all_warm"),
    "10k": ("list_all_cold", "list_all_warm"),
    "1g": ("open",),
}

generate.PRESETS.setdefault("1k", generate.Params(big_entries=1_000, sessions=100, projects=5))
generate._DISK.setdefault("1k", 40e6)


def measure(preset: str, runs: int) -> dict[str, Any]:
    """One run.py report for ``preset``, with its measurements of :data:`SIZES`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run.main(["--preset", preset, "--only", ",".join(SIZES[preset]), "-n", str(runs), "--no-073"])
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def _seconds(m: dict[str, Any], side: str) -> str:
    wall, cpu = m.get(f"{side}_s"), m.get(f"{side}_cpu_s")
    return "-" if wall is None else f"{wall:.2f} s ({cpu:.2f})"


def _ratio(m: dict[str, Any]) -> str:
    pt, pi = m.get("pitui_cpu_s"), m.get("pi_cpu_s")
    cpu = f" ({pt / pi:.2f})" if pt and pi else ""
    return "-" if m.get("ratio") is None else f"{m['ratio']:.2f}{cpu}"


def table(reports: dict[str, dict[str, Any]]) -> str:
    """The Markdown tables: the open by entries, the listings by sessions."""
    lines = [
        "| open, `inspect --json` | pitui wall (CPU) | pi 1.6.0 wall (CPU) | ratio (CPU ratio) | pitui MB | pi MB |",
        "|---|---|---|---|---|---|",
    ]
    for report in reports.values():
        m = report.get("open")
        if m is None:
            continue
        entries = report["data"]["big_entries"]
        size = report["data"]["big_mb"]
        lines.append(
            f"| {entries:,} entries, {size:,.0f} MB | {_seconds(m, 'pitui')} | {_seconds(m, 'pi')} | {_ratio(m)}"
            f" | {m.get('pitui_mb') or '-'} | {m.get('pi_mb') or '-'} |"
        )
    lines += [
        "",
        "| list all | cold: pitui (CPU) | pi 1.6.0 (CPU) | ratio (CPU ratio) | warm: pitui (CPU) | ratio (CPU ratio) |",
        "|---|---|---|---|---|---|",
    ]
    for report in reports.values():
        cold, warm = report.get("list_all_cold"), report.get("list_all_warm")
        if cold is None:
            continue
        data = report["data"]
        warm = warm or {}
        lines.append(
            f"| {data['sessions']:,} sessions, {data['sessions_mb']:,.0f} MB | {_seconds(cold, 'pitui')}"
            f" | {_seconds(cold, 'pi')} | {_ratio(cold)} | {_seconds(warm, 'pitui')} | {_ratio(warm)} |"
        )
    loads = [load for report in reports.values() for load in report["load_average"]]
    if loads:
        lines += ["", f"load average {min(loads):.1f} to {max(loads):.1f}; CPU seconds in brackets"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=3, help="runs per measurement and side (median)")
    ap.add_argument("--sizes", default=",".join(SIZES), help="comma-separated presets: " + ",".join(SIZES))
    ap.add_argument("--json", action="store_true", help="print the reports as one JSON object")
    args = ap.parse_args(argv)
    presets = [p for p in args.sizes.split(",") if p]
    unknown = set(presets) - set(SIZES)
    if unknown:
        ap.error(f"unknown size(s): {', '.join(sorted(unknown))}")
    reports: dict[str, dict[str, Any]] = {}
    for preset in presets:
        print(f"scaling: {preset} ...", file=sys.stderr, flush=True)
        reports[preset] = measure(preset, args.runs)
    if args.json:
        print(json.dumps(reports, indent=1))
    else:
        print(table(reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
