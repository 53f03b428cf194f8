"""Where the tokens went (pitui.store.catalog.usage, ``pitui usage``) against pi 1.6.0: each
session's usage per model is pi's own ``getUsageCostBreakdown``, and the figures of every bucket
add up to the sum of pi's ``/session`` totals of the sessions listed."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.stats_reading import FOR_PI

from pitui.store.catalog.usage import scan_usage
from pitui.store.reader import Session
from pitui.store.totals import session_stats

REPO = Path(__file__).resolve().parents[2]


def _numbers(*values: Any) -> bool:
    return all(type(v) in (int, float) and math.isfinite(v) for v in values)


def _by_source(path: Path) -> dict[str, tuple[float, float]]:
    """pitui's usage of one file per source: (cost, tokens), as pi's breakdown keeps them."""
    scan = scan_usage(str(path))
    out: dict[str, list[float]] = {}
    for part in (scan.done, scan.tail):
        for (_, source), figures in part.items():
            sums = out.setdefault(source, [0, 0])
            sums[0] += figures[4]
            sums[1] += sum(figures[:4])
    return {key: (cost, tokens) for key, (cost, tokens) in out.items() if cost > 0 or tokens > 0}


def _pi_key(key: str) -> str:
    """pi's template literal writes ``undefined``/``null`` for a missing part; pitui ``unknown``."""
    provider, _, model = key.partition("/")
    parts = ["unknown" if part in ("undefined", "null") else part for part in (provider, model)]
    return "/".join(parts)


@pytest.fixture(scope="module")
def pi_breakdown(oracle) -> dict[str, Any]:
    return oracle.usage_breakdown(FOR_PI)


def test_usage_per_model_is_pis_breakdown(pi_breakdown):
    """On every fixture pi can total: the same sources, tokens and cost as pi's own breakdown."""
    compared = sources = 0
    for path in FOR_PI:
        pi = pi_breakdown[str(path)]
        stats = session_stats(Session.load(str(path)).entries)
        if isinstance(pi, dict) or stats.error is not None or not _numbers(*stats.exact):
            continue  # pi throws, or its sums are not numbers there (NaN rows it leaves out)
        got = _by_source(path)
        assert sorted(got) == sorted(_pi_key(row["key"]) for row in pi), path.name
        for row in pi:
            cost, tokens = got[_pi_key(row["key"])]
            assert tokens == row["tokens"], path.name
            assert math.isclose(cost, row["cost"], rel_tol=1e-12, abs_tol=1e-12), path.name
        compared += 1
        sources += len(pi)
    assert compared >= 40 and sources > compared  # (many files, some with usage of several sources)


def _pi_totals(oracle, files: list[Path]) -> dict[Path, list[float]]:
    """pi's totals (input, output, cache read, cache write, cost) of the files it totals to numbers."""
    opened = oracle.open_many(files)
    kept: dict[Path, list[float]] = {}
    for path in files:
        stats = opened[str(path)].get("stats")
        if stats is None or "error" in stats:
            continue
        tokens = stats["tokens"]
        figures = [tokens["input"], tokens["output"], tokens["cacheRead"], tokens["cacheWrite"], stats["cost"]]
        if _numbers(*figures):
            kept[path] = figures
    return kept


def _pitui(env: dict[str, str], *args: str) -> Any:
    out = subprocess.run(
        [sys.executable, "-m", "pitui", *args],
        capture_output=True,
        env={**env, "PYTHONPATH": str(REPO)},
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)


def _check_cli_against(oracle, files: list[Path], env: dict[str, str]) -> int:
    """Sessions pi totals to numbers, in five project folders: ``pitui usage --all --json``'s
    buckets add up to the sum of pi's totals of the sessions ``pitui ls --all`` lists."""
    kept = _pi_totals(oracle, files)
    agent = Path(env["PI_CODING_AGENT_DIR"])
    shutil.rmtree(agent / "sessions", ignore_errors=True)
    copies: dict[str, list[float]] = {}
    for n, (path, figures) in enumerate(kept.items()):
        folder = agent / "sessions" / f"--project-{n % 5}--"
        folder.mkdir(parents=True, exist_ok=True)
        copy = folder / f"{n:03d}_{path.name}"
        shutil.copyfile(path, copy)
        copies[str(copy)] = figures
    listed_paths = [row["path"] for row in _pitui(env, "ls", "--all", "--json")]
    pi_sums = [0.0] * 5
    for path in listed_paths:
        pi_sums = [a + b for a, b in zip(pi_sums, copies[path], strict=True)]
    assert pi_sums[4] > 0
    listed = None
    for by in ("day", "project", "model"):
        report = _pitui(env, "usage", "--all", "--by", by, "--json")
        total = report["total"]
        got = [total["input"], total["output"], total["cacheRead"], total["cacheWrite"], total["cost"]]
        assert got[:4] == pi_sums[:4], by
        assert math.isclose(got[4], pi_sums[4], rel_tol=1e-9), by
        rows = report["rows"]
        for i, field in enumerate(("input", "output", "cacheRead", "cacheWrite")):
            assert sum(row[field] for row in rows) == pi_sums[i], (by, field)
        assert math.isclose(sum(row["cost"] for row in rows), pi_sums[4], rel_tol=1e-9)
        paths = {p for row in rows for p in row["sessionPaths"]}
        assert total["sessions"] == len(paths)
        assert listed in (None, paths)
        listed = paths
    assert listed is not None and listed <= set(listed_paths)
    return len(listed_paths)


def test_cli_total_is_the_sum_of_pis_totals_on_the_fixtures(oracle, pitui_env):
    assert _check_cli_against(oracle, FOR_PI, pitui_env) >= 40


def test_cli_total_is_the_sum_of_pis_totals_on_sessions_pi_wrote(oracle, pi_written, pitui_env):
    assert _check_cli_against(oracle, [w.file for w in pi_written], pitui_env) == len(pi_written)
