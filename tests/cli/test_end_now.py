"""A command or the app that is done ends its process at once (``_end_now``): its output is all
out, its status is the process's, and a thread Python's own end would wait for is waited for."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _run(script: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=60)


def test_the_output_is_flushed_and_the_status_kept() -> None:
    done = _run(
        """
        import sys
        from pitui.cli.main import _end_now
        sys.stdout.write("the whole report" * 1000)
        sys.stderr.write("a problem")
        _end_now(3)
        raise SystemExit("not reached")
        """
    )
    assert done.returncode == 3
    assert done.stdout == "the whole report" * 1000
    assert done.stderr == "a problem"


def test_a_thread_python_would_wait_for_is_waited_for(tmp_path: Path) -> None:
    mark = tmp_path / "written"
    done = _run(
        f"""
        import threading, time
        from pitui.cli.main import _end_now
        def write():
            time.sleep(0.2)
            open({str(mark)!r}, "w").write("done")
        threading.Thread(target=write).start()
        _end_now(0)
        """
    )
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "done"


def test_a_thread_still_running_leaves_the_end_to_python(tmp_path: Path) -> None:
    """(A pool's idle thread is told to stop by Python's own end: waited for past the second,
    the process ends as it would have without ``_end_now``.)"""
    mark = tmp_path / "after"
    done = _run(
        f"""
        import threading
        from pitui.cli import main
        main._THREADS_WAIT_S = 0.1
        stop = threading.Event()
        threading.Thread(target=stop.wait).start()
        main._end_now(5)
        open({str(mark)!r}, "w").write("returned")
        stop.set()
        """
    )
    assert done.returncode == 0, done.stderr
    assert mark.read_text() == "returned"
