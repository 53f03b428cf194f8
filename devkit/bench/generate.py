"""Deterministic generators of pi session data for the benchmark.

Two data sets, both written in pi 1.6.0's exact format (compact JSON, keys in pi's order, 8-hex
entry ids, ISO millisecond ``Z`` timestamps, UUIDv7 session ids), with what pi 1.6.0 writes that
0.73.1 did not: a system message at the start of every session and its checkpoint in
compactions, cache-warming ``usage`` entries, and a few ``context_edit`` entries (``pi16.py``):

* ``big``: one long session (100,000 entries, about 100 MB by default): a chain of
  user / assistant / toolResult messages with thinking, text, tool calls, usage and tool output of
  varied size, with a branch every few hundred entries (the conversation goes back a few entries
  and continues; the leaf ends on the newest branch), labels, a few compactions, model and
  thinking level changes and session names.
* ``tree``: an agent folder ``agent/sessions/<encoded cwd>/*.jsonl`` with 2,000 sessions over
  about 40 project folders, sizes log-normal between 2 KB and 2 MB, names on some, forks with
  ``parentSession`` on some.

The output goes to a cache folder (default ``$TMPDIR/pitui-bench/<preset>``) and is reused when
it was made with the same parameters. Same parameters, same bytes.

    python -m devkit.bench.generate [--quick] [--out DIR] [--force] [--verify]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

from devkit.bench.data_sets import SessionSpec, build_big, build_session, plan_tree
from devkit.bench.session_builder import SEARCH_QUERY
from devkit.bench.text_corpus import shared_corpus
from devkit.bench.verify import verify

# A cache made by a different version of the generator's modules is not reused.
_GENERATOR_MODULES = ("generate.py", "text_corpus.py", "session_builder.py", "data_sets.py")
GENERATOR_VERSION = hashlib.sha256(
    b"".join((Path(__file__).parent / name).read_bytes() for name in _GENERATOR_MODULES)
).hexdigest()[:12]


@dataclass(frozen=True)
class Params:
    seed: int = 20260501
    big_entries: int = 100_000
    sessions: int = 2_000
    projects: int = 40
    min_size: int = 2_000
    max_size: int = 2_000_000
    median_size: int = 90_000
    size_sigma: float = 1.4
    named_fraction: float = 0.15
    fork_fraction: float = 0.06
    query_fraction: float = 0.04

    def key(self) -> str:
        data = json.dumps({"v": GENERATOR_VERSION, **asdict(self)}, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]


PRESETS = {
    "full": Params(),
    "quick": Params(big_entries=10_000, sessions=200, projects=12),
    # listing at scale: 10,000 sessions of about 1.4 GB in all (smaller ones than "full"'s), and a
    # small big session (this set is for the listing and the picker)
    "10k": Params(big_entries=10_000, sessions=10_000, projects=120, median_size=48_000),
    # one session at scale: 1,000,000 entries, about 1 GB (this set is for the open and the
    # session view; its folder of sessions is small)
    "1g": Params(big_entries=1_000_000, sessions=50, projects=4),
}
# the disk each preset takes, about
_DISK = {"full": 700e6, "quick": 80e6, "10k": 1.5e9, "1g": 1.2e9}


# --------------------------------------------------------------------------------------------
# Cache folder.


def default_root() -> Path:
    return Path(os.environ.get("PITUI_BENCH_DIR") or Path(tempfile.gettempdir()) / "pitui-bench")


@dataclass
class Dataset:
    root: Path
    big: Path
    agent_dir: Path
    sessions: int
    tree_bytes: int
    big_bytes: int
    big_entries: int
    query: str

    def to_json(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


_TREE_SPECS: list[SessionSpec] = []
_TREE_DIR: Path | None = None
_SEED = 0


def _tree_job(index: int) -> tuple[str, int]:
    assert _TREE_DIR is not None
    return build_session(_TREE_SPECS[index], _TREE_SPECS, _TREE_DIR, _SEED)


def _big_job(params: Params, out: Path) -> tuple[str, int]:
    name, data = build_big(params)
    (out / "big").mkdir(parents=True, exist_ok=True)
    path = out / "big" / name
    path.write_bytes(data)
    return str(path), len(data)


def generate(params: Params, out: Path, *, workers: int | None = None, log=print) -> Dataset:
    global _TREE_SPECS, _TREE_DIR, _SEED
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    started = time.monotonic()
    shared_corpus(params.seed)  # built once, before the workers fork, and shared with them
    log(f"corpus ready in {time.monotonic() - started:.1f}s")
    _TREE_SPECS = plan_tree(params)
    _TREE_DIR = out / "agent" / "sessions"
    _SEED = params.seed
    _TREE_DIR.mkdir(parents=True)
    workers = workers or max(1, os.cpu_count() or 1)
    # Biggest first, so that the pool ends evenly.
    order = sorted(range(len(_TREE_SPECS)), key=lambda i: -_TREE_SPECS[i].target)
    ctx = get_context("fork")
    with ctx.Pool(workers) as pool:
        big = pool.apply_async(_big_job, (params, out))
        tree_bytes = 0
        for done, (_, size) in enumerate(pool.imap_unordered(_tree_job, order, chunksize=4), 1):
            tree_bytes += size
            if done % 500 == 0:
                log(f"{done}/{len(order)} sessions, {tree_bytes / 1e6:.0f} MB, {time.monotonic() - started:.0f}s")
        big_path, big_bytes = big.get()
    data = Dataset(
        out,
        Path(big_path),
        out / "agent",
        len(_TREE_SPECS),
        tree_bytes,
        big_bytes,
        params.big_entries,
        SEARCH_QUERY,
    )
    manifest = {
        "key": params.key(),
        "params": asdict(params),
        "dataset": data.to_json(),
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    log(
        f"generated in {manifest['seconds']}s: big {big_bytes / 1e6:.0f} MB, "
        f"tree {len(_TREE_SPECS)} sessions {tree_bytes / 1e6:.0f} MB"
    )
    return data


def ensure(preset: str = "full", root: Path | None = None, *, force: bool = False, log=print) -> Dataset:
    """The data set of a preset, generated unless the cache holds it with the same parameters."""
    params = PRESETS[preset]
    out = (root or default_root()) / preset
    manifest_path = out / "manifest.json"
    if not force and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("key") == params.key():
            d = manifest["dataset"]
            data = Dataset(
                Path(d["root"]),
                Path(d["big"]),
                Path(d["agent_dir"]),
                d["sessions"],
                d["tree_bytes"],
                d["big_bytes"],
                d["big_entries"],
                d["query"],
            )
            if data.big.exists() and data.agent_dir.exists():
                return data
    free = shutil.disk_usage(out.parent if out.parent.exists() else Path(tempfile.gettempdir())).free
    need = _DISK[preset]
    if free < need * 1.5:
        raise SystemExit(f"not enough disk space in {out.parent}: {free / 1e9:.1f} GB free, need ~{need / 1e9:.1f}")
    out.parent.mkdir(parents=True, exist_ok=True)
    return generate(params, out, log=log)


def iter_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        yield from f


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data: 10,000 entries, 200 sessions")
    ap.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help="a preset by name (10k: 10,000 sessions, 1.4 GB; 1g: a 1,000,000-entry, 1 GB session)",
    )
    ap.add_argument("--out", type=Path, help="cache folder (default $TMPDIR/pitui-bench)")
    ap.add_argument("--force", action="store_true", help="generate even if the cache is up to date")
    ap.add_argument(
        "--verify",
        action="store_true",
        help="check with node that every line is byte-identical to JSON.stringify(JSON.parse(line))",
    )
    args = ap.parse_args(argv)
    data = ensure(
        args.preset or ("quick" if args.quick else "full"),
        args.out,
        force=args.force,
        log=lambda m: print(m, file=sys.stderr),
    )
    print(json.dumps(data.to_json(), indent=1))
    if args.verify:
        return verify(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
