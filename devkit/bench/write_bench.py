"""Writes from the session view on the big generated session, against pi's own code.

    python -m devkit.bench.write_bench [--reps 20] [--quick] [--out DIR]

What is timed, on a copy of the 100,000-entry session, with the session already read:

- pitui, a label: ``SessionEditor.label`` (reads what pi appended, appends one line, fsyncs)
  and ``TreeModel.update`` (the tree laid out again, so the label shows at once);
- pitui, a branch without summary: ``SessionEditor.branch`` and ``TreeModel.update``;
- pitui, undo of that branch;
- pi, a label: ``appendLabelChange`` (what /tree's Shift+L writes; pi does not fsync) and
  ``getTree()``, what reopening /tree costs to show the new state (pi does not update its open
  tree: the label entry appears only when /tree is opened again).

A script, not a test: one JSON object on stdout, progress on stderr; it never fails on the
figures. See devkit/bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from devkit.bench import bytecode, generate
from devkit.env import pi16
from pitui.store.reader import Session
from pitui.store.tree import TreeModel
from pitui.store.write.editing import SessionEditor

PI_BENCH = Path(__file__).resolve().parent / "pi_bench.mjs"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def pitui_writes(big: Path, reps: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="pitui-write-bench-") as work:
        copy = Path(work) / big.name
        shutil.copyfile(big, copy)
        session = Session.load(str(copy))
        model = TreeModel(session)
        editor = SessionEditor(session)
        ids = [e.id for e in session.entries if e.type == "message"]
        target = ids[len(ids) // 2]
        earlier = ids[len(ids) // 3]
        labels, branches, undos, updates = [], [], [], []
        for i in range(reps):
            start = time.perf_counter()
            editor.label(target, f"label {i}")
            wrote = time.perf_counter()
            model.update()
            labels.append(time.perf_counter() - start)
            updates.append(time.perf_counter() - wrote)

            start = time.perf_counter()
            editor.branch(earlier)
            model.update()
            branches.append(time.perf_counter() - start)

            start = time.perf_counter()
            editor.undo()
            model.update()
            undos.append(time.perf_counter() - start)
        return {
            "entries": len(session.entries),
            "label_ms": ms(statistics.median(labels)),
            "branch_ms": ms(statistics.median(branches)),
            "undo_ms": ms(statistics.median(undos)),
            "tree_update_ms": ms(statistics.median(updates)),
        }


def pi_label(big: Path, reps: int) -> dict[str, float]:
    """pi 1.6.0's label append and tree rebuild, on Node 22."""
    pi = pi16()
    r = subprocess.run(
        pi.script(PI_BENCH, "label", str(big), str(reps)),
        capture_output=True,
        check=False,
        env={**os.environ, **pi.env()},
    )
    if r.returncode:
        raise RuntimeError(f"pi: {r.stderr.decode(errors='replace')[-2000:]}")
    return json.loads(r.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=20, help="writes of each kind")
    ap.add_argument("--quick", action="store_true", help="the small data set (10,000 entries)")
    ap.add_argument("--out", type=Path, help="data cache folder (default $TMPDIR/pitui-bench)")
    args = ap.parse_args(argv)
    data = generate.ensure("quick" if args.quick else "full", args.out, log=log)
    bytecode.ensure_compiled()
    log(f"pitui: {args.reps} labels, branches and undos on {data.big.name}")
    mine = pitui_writes(data.big, args.reps)
    log(f"pi: {args.reps} labels")
    theirs = pi_label(data.big, args.reps)
    pi_shown = theirs["append_ms"] + theirs["tree_ms"]
    result = {
        "load_avg": round(os.getloadavg()[0], 2),
        "pitui": mine,
        "pi": {
            "version": theirs.get("piVersion"),
            "append_ms": theirs["append_ms"],
            "tree_ms": theirs["tree_ms"],
            "entries": theirs["entries"],
        },
        "label_shown_ratio": round(mine["label_ms"] / pi_shown, 3) if pi_shown else None,
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
