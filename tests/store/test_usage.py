"""Usage per day and source (pitui.store.catalog.usage) and its report (pitui.store.usage_report):
buckets, periods, local days, a grown file read from where it was left, damaged lines."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.cache_lock import CloseOnFirstProgress

from pitui.store.catalog import Catalog
from pitui.store.catalog.usage import scan_usage
from pitui.store.usage_report import usage_report

REPO = Path(__file__).resolve().parents[2]


def _usage(i: int, o: int, r: int, w: int, cost: float) -> dict[str, Any]:
    return {"input": i, "output": o, "cacheRead": r, "cacheWrite": w, "cost": {"total": cost}}


def _assistant(n: int, ms: int, model: str, usage: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": [], "provider": "p", "model": model, "usage": usage, "timestamp": ms}
    return {"type": "message", "id": f"a{n}", "parentId": None, "timestamp": "2026-01-01T00:00:00Z", "message": message}


HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-01T10:00:00.000Z", "cwd": "/proj"}
# 2026-11-30 23:30 and 2026-12-01 00:30 UTC, in ms
LATE, EARLY = 1796081400000, 1796085000000


def _write(path: Path, entries: list[Any], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in [HEADER, *entries]) + tail)
    return path


def _sums(scan) -> dict[tuple[str, str], list[Any]]:
    out = {key: list(v) for key, v in scan.done.items()}
    for key, v in scan.tail.items():
        out[key] = [a + b for a, b in zip(out.get(key, [0] * 6), v, strict=True)]
    return out


def _entries() -> list[Any]:
    return [
        _assistant(1, LATE, "m1", _usage(10, 20, 30, 40, 0.5)),
        _assistant(2, EARLY, "m1", _usage(1, 2, 3, 4, 0.25)),
        {"type": "message", "id": "t", "message": {"role": "toolResult", "usage": _usage(5, 0, 0, 0, 0.1)}},
        {"type": "message", "id": "t2", "message": {"role": "toolResult", "usage": None}},  # falsy: none
        {"type": "usage", "id": "u", "timestamp": "2026-11-30T12:00:00.000Z", "provider": "q", "model": "w"}
        | {"usage": _usage(0, 0, 100, 0, 0.01)},
        {"type": "compaction", "id": "c", "timestamp": "2026-11-30T13:00:00.000Z", "usage": _usage(7, 7, 0, 0, 0)},
        {"type": "message", "id": "u1", "message": {"role": "user", "content": "hi", "usage": _usage(9, 9, 9, 9, 9)}},
    ]


def _in_zone(tz: str, path: Path) -> dict[str, Any]:
    code = (
        "import json,sys; from pitui.store.catalog.usage import scan_usage; s=scan_usage(sys.argv[1]);"
        "print(json.dumps(sorted([list(k)+v for k,v in s.done.items()])))"
    )
    env = {**os.environ, "TZ": tz, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, env=env, check=True, text=True)
    return json.loads(out.stdout)


def test_buckets_by_local_day_and_source(tmp_path):
    path = _write(tmp_path / "s.jsonl", _entries())
    utc = _in_zone("UTC", path)
    assert utc == [
        ["2026-11-30", "Tools/summaries", 7, 7, 0, 0, 0, 1],  # the compaction
        ["2026-11-30", "p/m1", 10, 20, 30, 40, 0.5, 1],
        ["2026-11-30", "q/w", 0, 0, 100, 0, 0.01, 1],
        ["2026-12-01", "p/m1", 1, 2, 3, 4, 0.25, 1],
        ["unknown", "Tools/summaries", 5, 0, 0, 0, 0.1, 1],  # the tool result has no time, nor its entry
    ]
    # two hours east of UTC both assistant messages fall on 1 December, at noon and later
    east = _in_zone("EET-2", path)
    assert ["2026-12-01", "p/m1", 11, 22, 33, 44, 0.75, 2] in east


def test_damaged_lines_are_read_as_json_parse_reads_them(tmp_path):
    good = _assistant(1, LATE, "m1", _usage(1, 1, 1, 1, 1))
    lines = [json.dumps(HEADER), "{not json", json.dumps(good), "null", "[1,2]", '{"type":"message","message":5}']
    lines.append(json.dumps(_assistant(2, LATE, "m1", {"input": 1})))  # no cost: pi throws, left out
    lines.append(json.dumps(_assistant(3, LATE, "m1", {**_usage(2, 2, 2, 2, 2), "input": "x"})))  # not a number: 0
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (figures,) = _sums(scan_usage(str(path))).values()
    assert figures == [1, 3, 3, 3, 3, 2]


def test_a_grown_file_is_read_from_where_it_was_left(tmp_path):
    path = _write(tmp_path / "g.jsonl", _entries()[:1], tail=json.dumps(_entries()[1])[:30])  # a torn last line
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as catalog:
        infos = catalog.list_dir(str(tmp_path))
        first = catalog.usage(infos)[str(path)]
        assert sum(f[0] for f in first.buckets.values()) == 10
        done_at = scan_usage(str(path)).offset
        with path.open("a") as f:
            f.write(json.dumps(_entries()[1])[30:] + "\n" + json.dumps(_entries()[2]) + "\n")
        infos = catalog.list_dir(str(tmp_path))
        grown = catalog.usage(infos)[str(path)]
        assert sum(f[0] for f in grown.buckets.values()) == 10 + 1 + 5
        assert done_at > 0
        # a file replaced by another of the same size is read whole
        path.write_text(path.read_text().replace('"m1"', '"m2"'))
        infos = catalog.list_dir(str(tmp_path))
        assert {source for _, source in catalog.usage(infos)[str(path)].buckets} == {"p/m2", "Tools/summaries"}


def test_report_periods_groupings_and_the_sessions_of_each_bucket(tmp_path):
    a = _write(tmp_path / "a.jsonl", _entries())
    other = {**HEADER, "cwd": "/other"}
    b = tmp_path / "b.jsonl"
    b.write_text(
        json.dumps(other) + "\n" + json.dumps(_assistant(9, LATE - 86400000 * 10, "m9", _usage(1, 0, 0, 0, 1))) + "\n"
    )
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as catalog:
        infos = catalog.list_dir(str(tmp_path))
        usage = catalog.usage(infos)
    today = datetime.date(2026, 12, 1)
    week = usage_report(infos, usage, "project", 7, today)
    assert [(row.key, row.sessions) for row in week.rows] == [("/proj", [str(a)])]
    assert week.first_day == "2026-11-25"
    month = usage_report(infos, usage, "project", 30, today)
    assert sorted(row.key for row in month.rows) == ["/other", "/proj"]
    assert month.total.sessions == [info.path for info in infos]
    assert month.total.input == sum(row.input for row in month.rows)
    models = usage_report(infos, usage, "model", None, today)
    assert models.row("p/m9").sessions == [str(b)]
    assert models.rows[0].cost >= models.rows[-1].cost
    days = usage_report(infos, usage, "day", None, today)
    assert [row.key for row in days.rows] == sorted(row.key for row in days.rows if row.key != "unknown") + (
        ["unknown"] if days.row("unknown") else []
    )
    assert json.loads(json.dumps(days.to_json()))["total"]["sessions"] == 2


def test_a_grown_file_keeps_the_sums_of_the_lines_before_and_reads_only_the_rest(tmp_path, monkeypatch):
    path = _write(tmp_path / "r.jsonl", _entries()[:2])
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache")) as catalog:
        catalog.usage(catalog.list_dir(str(tmp_path)))
        size = path.stat().st_size
        with path.open("a") as f:
            f.write(json.dumps(_entries()[4]) + "\n")
        import pitui.store.catalog.usage as usage_module

        starts: list[int] = []
        real = usage_module.scan_usage

        def spy(p: str, offset: int = 0, done: Any = None) -> Any:
            starts.append(offset)
            return real(p, offset, done)

        monkeypatch.setattr(usage_module, "scan_usage", spy)
        grown = catalog.usage(catalog.list_dir(str(tmp_path)))[str(path)]
    assert starts == [size]
    by_source: dict[str, int] = {}
    for (_, source), figures in grown.buckets.items():
        by_source[source] = by_source.get(source, 0) + figures[2]
    assert by_source == {"p/m1": 33, "q/w": 100}


def test_closing_the_catalog_stops_a_count_under_way(tmp_path):
    """A quitting app closes its catalog while the usage screen may be counting: the count stops
    at its next file instead of making the close wait for the rest."""
    folder = tmp_path / "agent" / "sessions" / "--proj--"
    folder.mkdir(parents=True)
    for n in range(30):
        _write(folder / f"{n:02d}.jsonl", _entries())
    catalog = Catalog(str(tmp_path / "agent"), str(tmp_path / "cache"), workers=0)
    infos = catalog.list_all()
    progress = CloseOnFirstProgress(catalog)
    counted = catalog.usage(infos, progress)
    assert progress.closed()
    assert len(counted) < 30 and len(progress.told) < 30  # the files after the close were not read
    assert len(catalog.usage(infos)) == 30
