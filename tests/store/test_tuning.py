"""The process-wide switches in pitui.store.tuning, each in a process of its own."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path

from pitui.store import tuning


def test_gc_paused_restores_the_collector_as_it_was() -> None:
    assert gc.isenabled()
    with tuning.gc_paused():
        assert not gc.isenabled()
        with tuning.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause found it off and left it off
    assert gc.isenabled()


def test_pauses_from_two_threads_end_with_the_last_one() -> None:
    """The app's reading workers pause the collector each on its own thread: one that ends
    while the other still reads leaves it paused, and the last one turns it back on."""
    entered, release = threading.Event(), threading.Event()

    def reader() -> None:
        with tuning.gc_paused():
            entered.set()
            release.wait(10)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert entered.wait(10)
        with tuning.gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the other thread still reads
    finally:
        release.set()
        thread.join()
    assert gc.isenabled()


def test_a_frozen_heap_is_kept_out_of_collections_until_thawed() -> None:
    class Node:
        other: object

    with tuning.gc_paused():  # no collection between making the cycle and freezing it
        node = Node()
        node.other = node  # a cycle: only the collector frees it
        alive = weakref.ref(node)
        del node
        tuning.freeze_heap()
    try:
        gc.collect()
        assert alive() is not None  # frozen: not walked, so not freed
    finally:
        tuning.thaw_heap()
    gc.collect()
    assert alive() is None  # given back: freed by the next full collection


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not tuning.can_fork()
    finally:
        stop.set()
        thread.join()


def test_helpers_that_cannot_start_are_no_error(tmp_path: Path) -> None:
    """A fork server listens on a Unix socket under $TMPDIR; past the ~100 bytes such a path
    may have, it cannot start, and the app starts without it."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    code = "from pitui.store import tuning; tuning.start_process_helpers(); print('started')"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "TMPDIR": str(deep)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "started"), done.stderr


def test_a_freeze_after_a_collection_keeps_no_garbage_back() -> None:
    class Node:
        pass

    node = Node()
    node.loop = node  # type: ignore[attr-defined]  # a cycle: only the collector frees it
    gone = weakref.ref(node)
    del node
    tuning.freeze_heap(collect=True)
    try:
        assert gone() is None
    finally:
        tuning.thaw_heap()
