"""Big files are parsed by forked children as well as the main process: the session read must be
exactly the one a single pass gives (entries, problems, line numbers, leaf, torn last line)."""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.mixed_session import make_entry as _entry
from helpers.mixed_session import mixed_lines as _lines
from helpers.mixed_session import signature as _signature

from pitui.store import parallel as parallel_mod
from pitui.store import tuning
from pitui.store.model import NotASessionError
from pitui.store.reader import Session

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the parallel read forks (Linux only)")


def _read(path: Path, *, parallel: int | None, monkeypatch: pytest.MonkeyPatch) -> Session:
    if parallel is None:
        monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 1 << 62)
    else:
        monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(tuning, "PARALLEL_WORKERS", parallel)
    return Session.load(str(path))


def _same(path: Path, monkeypatch: pytest.MonkeyPatch, workers: int = 1) -> Session:
    single = _read(path, parallel=None, monkeypatch=monkeypatch)
    calls: list[Any] = []
    start = parallel_mod.start_parallel

    def spy(*args: Any) -> Any:
        result = start(*args)
        calls.append(result)
        return result

    monkeypatch.setattr(parallel_mod, "start_parallel", spy)
    parallel = _read(path, parallel=workers, monkeypatch=monkeypatch)
    assert calls and calls[0] is not None, "the parallel path did not run"
    assert _signature(parallel) == _signature(single)
    return parallel


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_same_as_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(3000)) + b"\n")
    s = _same(path, monkeypatch, workers)
    assert len(s.entries) > 2000 and s.problems


@pytest.mark.parametrize("tail", [b'{"type":"message","id":"torn', b'{"type":"message","id":"torn"}', b"\n \n\t"])
def test_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(1500)) + b"\n" + tail)
    s = _same(path, monkeypatch, 2)
    if tail.startswith(b'{"type":"message","id":"torn"'):
        assert s.torn_line if not tail.endswith(b"}") else not s.torn_line


def test_whitespace_around_the_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes("\ufeff \n\n".encode() + b"\n".join(_lines(1500)) + b"\r\n  \n")
    _same(path, monkeypatch, 2)


def test_a_child_that_fails_leaves_its_lines_to_the_main_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(2000)) + b"\n")

    def fail(*args: Any) -> Any:
        raise RuntimeError("no")

    monkeypatch.setattr(parallel_mod, "parse_chunk", fail)  # inherited by the forked child
    _same(path, monkeypatch, 2)


def test_no_fork(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(2000)) + b"\n")

    def no_fork() -> int:
        raise OSError("no fork")

    monkeypatch.setattr(os, "fork", no_fork)
    _same(path, monkeypatch, 2)


def test_old_versions_and_odd_headers_take_the_one_pass_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(1000)
    for header in (
        b'{"type":"session","id":"x","timestamp":"t"}',
        b'{"type":"session","version":2,"id":"x"}',
        b"garbage",
        b'{"type":"message","id":"a"}',
    ):
        path = tmp_path / "s.jsonl"
        path.write_bytes(b"\n".join([header, *lines[1:]]) + b"\n")
        monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(tuning, "PARALLEL_WORKERS", 2)
        assert parallel_mod.start_parallel(path.read_bytes(), 1) is None
        try:
            parallel = _signature(Session.load(str(path)))
        except NotASessionError:
            parallel = "not a session"
        monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 1 << 62)
        try:
            single = _signature(Session.load(str(path)))
        except NotASessionError:
            single = "not a session"
        assert parallel == single


def test_refresh_after_a_parallel_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    lines = _lines(1500)
    path.write_bytes(b"\n".join(lines) + b"\n" + b'{"type":"message","id":"tor')
    s = _same(path, monkeypatch, 1)
    with path.open("ab") as f:
        f.write(b'n","parentId":null}\n' + json.dumps(_entry(99999, "torn")).encode() + b"\n")
    assert s.refresh() == 2
    monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 1 << 62)
    fresh = Session.load(str(path))
    assert _signature(s)[:9] == _signature(fresh)[:9]


def test_a_threaded_process_reads_in_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process running a second thread (the app) does not fork: the whole file is read in the
    process, and read the same."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(1500)) + b"\n")
    single = _signature(_read(path, parallel=None, monkeypatch=monkeypatch))
    calls: list[Any] = []
    start = parallel_mod.start_parallel

    def spy(*args: Any) -> Any:
        calls.append((tuning.can_fork(), start(*args)))
        return calls[-1][1]

    monkeypatch.setattr(parallel_mod, "start_parallel", spy)
    monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(tuning, "PARALLEL_WORKERS", 2)
    read: list[Session] = []
    worker = threading.Thread(target=lambda: read.append(Session.load(str(path))))
    worker.start()
    worker.join()
    assert calls == [(False, None)]
    assert _signature(read[0]) == single


@pytest.mark.parametrize("enabled", [True, False])
def test_the_reader_leaves_the_garbage_collector_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(300)) + b"\n")
    seen: list[bool] = []
    start = parallel_mod.start_parallel

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return start(*args)

    monkeypatch.setattr(parallel_mod, "start_parallel", spy)
    monkeypatch.setattr(tuning, "PARALLEL_MIN_BYTES", 0)
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        Session.load(str(path))
        assert gc.isenabled() is enabled and seen == [enabled]
        with tuning.gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
