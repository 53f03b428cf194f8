#!/usr/bin/env python3
"""Write the edge-case session files in tests/fixtures/ and their README table.

    python -m devkit.make_fixtures            # (re)write tests/fixtures/*.jsonl and README.md
    python -m devkit.make_fixtures --oracle   # also print what pi's SessionManager makes of each
                                              # file (tests/oracle; never run on the cycle files)

Each file is a few lines and shows one behaviour. The bytes are exact (BOM, CRLF, NUL, invalid
UTF-8, torn lines), which is why they are generated rather than written by hand. Ids are
readable 8-hex strings (``e0000003`` is the third entry), timestamps start at
2026-01-05T10:00:00.000Z and count seconds. The fixtures live in the ``devkit.fixtures_*``
modules, one per kind; the table in README.md (:mod:`devkit.fixtures_readme`) is generated from
FIXTURES below, in its order, including the notes on what pi 0.73.1 does with each file
(checked with ``--oracle``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from devkit.fixtures_context import CONTEXT_FIXTURES
from devkit.fixtures_damaged import DAMAGED_FIXTURES
from devkit.fixtures_format import FORMAT_FIXTURES
from devkit.fixtures_pi16 import EXISTING, NO_FILE, PI16_FIXTURES
from devkit.fixtures_readme import readme
from devkit.fixtures_registry import Fixture
from devkit.fixtures_totals import TOTALS_FIXTURES
from devkit.fixtures_write import WRITE_FIXTURES
from devkit.oracle import open_copy_in_pi

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures"

# The order of the README table.
FIXTURES: list[Fixture] = [
    *FORMAT_FIXTURES,
    *WRITE_FIXTURES,
    *DAMAGED_FIXTURES,
    *TOTALS_FIXTURES,
    *CONTEXT_FIXTURES,
]


def write_all() -> None:
    if OUT.exists():
        for p in OUT.glob("*.jsonl"):
            p.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data, *_ in [*FIXTURES, *PI16_FIXTURES]:
        (OUT / name).write_bytes(data)
    (OUT / "README.md").write_text(readme(FIXTURES, PI16_FIXTURES, EXISTING, NO_FILE), encoding="utf-8")


def oracle_report(path: Path) -> str:
    res = open_copy_in_pi(path)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["?"])[0]
        return f"ERROR (exit {res.returncode}): {last[:200]}"
    got = json.loads(res.stdout)
    ctx = got["context"]
    msgs = ", ".join(m["role"] + (f"({m['text'][:20]!r})" if "text" in m else "") for m in ctx["messages"])
    return (
        f"header.version={got['header'].get('version')} header.id={str(got['header'].get('id'))[:8]} entries={len(got['entryIds'])} leaf={got['leafId']}\n"  # noqa: E501
        f"    branch={got['branch']}\n    roots={got['tree']['roots']} children={got['tree']['children']}\n"
        f"    labels={got['labels']} name={got['name']!r} model={ctx['model']} thinking={ctx['thinkingLevel']}\n"
        f"    context=[{msgs}]"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--oracle", action="store_true", help="print what pi makes of each file (not the cycles)")
    args = ap.parse_args()
    write_all()
    print(f"{len(FIXTURES) + len(PI16_FIXTURES)} fixtures in {OUT.relative_to(ROOT)}")
    if args.oracle:
        for name, *_ in FIXTURES:
            if "cycle" in name:
                print(f"{name}: skipped (pi never returns on a cycle)")
                continue
            print(f"{name}: {oracle_report(OUT / name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
