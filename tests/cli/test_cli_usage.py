"""``pitui usage``: the table and --json over the demo's sessions, checked against the sessions'
own totals (``inspect``'s, pi's /session rule)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pitui.store.demo import install_demo
from pitui.store.reader import Session
from pitui.store.totals import session_stats


def pitui(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pitui", *args], capture_output=True, text=True, env={**os.environ, **env}, timeout=120
    )


@pytest.fixture
def demo(tmp_path: Path) -> tuple[dict[str, str], list[Path]]:
    installed = install_demo(str(tmp_path))
    env = {"PI_CODING_AGENT_DIR": installed.agent_dir, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    files = sorted(Path(installed.agent_dir, "sessions").glob("*/*.jsonl"))
    return env, files


@pytest.mark.parametrize("by", ["day", "project", "model"])
def test_json_buckets_add_up_to_every_sessions_totals(demo, by):
    env, files = demo
    result = pitui("usage", "--all", "--by", by, "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    stats = [session_stats(Session.load(str(f)).entries) for f in files]
    total = report["total"]
    assert total["input"] == sum(s.input for s in stats) == sum(row["input"] for row in report["rows"])
    assert total["cacheRead"] == sum(s.cache_read for s in stats) == sum(row["cacheRead"] for row in report["rows"])
    assert math.isclose(total["cost"], sum(s.cost for s in stats), abs_tol=1e-9)
    assert total["sessions"] == sum(1 for s in stats if s.total_tokens)
    assert report["by"] == by and report["period"] == "all"
    for row in report["rows"]:
        assert row["sessions"] == len(row["sessionPaths"]) >= 1
        assert row["totalTokens"] == row["input"] + row["output"] + row["cacheRead"] + row["cacheWrite"]


def test_table_has_a_row_per_bucket_and_a_total_line(demo):
    env, _ = demo
    report = json.loads(pitui("usage", "--all", "--by", "model", "--json", env=env).stdout)
    lines = pitui("usage", "--all", "--by", "model", env=env).stdout.splitlines()
    assert lines[0].startswith("Usage of every project's ") and lines[0].endswith("all time, by model")
    assert lines[1].split() == ["model", "input", "output", "cache", "read", "cache", "write", "cost", "sessions"]
    names = [line.split()[0] for line in lines[3:-2]]
    assert names == [row["key"] for row in report["rows"]]
    last = lines[-1].split()
    assert last[0] == "total" and last[1] == f"{report['total']['input']:,}"
    assert last[-2] == f"${report['total']['cost']:,.2f}"


def test_days_limits_the_period_and_is_checked(demo):
    env, _ = demo
    report = json.loads(pitui("usage", "--all", "--days", "1", "--json", env=env).stdout)
    assert report["period"] == 1 and all(row["key"] >= report["since"] for row in report["rows"])
    bad = pitui("usage", "--days", "0", env=env)
    assert bad.returncode == 2 and "--days" in bad.stderr
