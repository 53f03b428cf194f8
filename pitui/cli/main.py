"""The ``pitui`` entry point: parse, set up --demo, run a command or the app, errors to exit codes.

Never imports textual: the commands work without a terminal UI (only the app, started from
:mod:`pitui.cli.launch`, imports it).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Sequence

from pitui.cli import commands, launch
from pitui.cli.parser import parser_for
from pitui.cli.resolve import CliError
from pitui.safe_text import safe
from pitui.store import paths, tuning


def run() -> int:
    """The ``pitui`` command (``python -m pitui``): :func:`main`, ending the process as soon as a
    command, or the app, is done."""
    return main(end_process=True)


def main(argv: Sequence[str] | None = None, *, end_process: bool = False) -> int:
    """Run the command ``argv`` names (the app when none), and return its exit status. With
    ``end_process``, a command or an app that ran to its end ends the process there
    (:func:`_end_now`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser_for(argv).parse_args(argv)
    args.cwd = os.getcwd()
    if not hasattr(args, "command"):
        args.command = None
    try:
        if args.demo:
            _use_demo(args)
        if args.command is None:
            status = launch.run_app(args)  # interactive: with the cyclic GC on (its DOM and messages make cycles)
        else:
            # A batch command builds large object graphs without reference cycles: the cyclic
            # collector would only walk them again and again.
            with tuning.gc_paused():
                status = commands.RUN[args.command](args)
        if end_process and not args.demo:  # (the demo's copy is removed at exit)
            _end_now(status)
        return status
    except CliError as error:
        print(f"pitui: {safe(str(error))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:  # a folder that cannot be read, a full disk, ...
        where = f"{error.filename}: " if error.filename else ""
        print(f"pitui: {safe(where + str(error.strerror or error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


_THREADS_WAIT_S = 1.0


def _end_now(status: int) -> None:
    """End the process with ``status`` once its output is out, without taking its objects apart
    one by one first: at the end of a listing or of a 100,000-entry session's report that is 15
    to 25 ms of the command, and after the app has shown that session 0.2 s of the 0.45 s between
    the key that quits and the shell's prompt. The threads Python's own end would wait for
    (the file watcher's, stopping) are waited for first; if one is still running after a
    second, the end is left to Python."""
    deadline = time.monotonic() + _THREADS_WAIT_S
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                return
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head): not an error
        pass
    except OSError as error:  # a full disk under a redirected output
        print(f"pitui: cannot write the output: {safe(str(error.strerror or error))}", file=sys.stderr)
        status = 1
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    os._exit(status)


def _use_demo(args: argparse.Namespace) -> None:
    """Point pitui at a fresh copy of the demo sessions, removed again at exit unless the
    command prints a path into it (fork, clone, --print)."""
    import atexit
    import shutil

    from pitui.store.demo import install_demo

    demo = install_demo()
    os.environ[paths.AGENT_DIR_ENV] = demo.agent_dir
    os.environ.pop(paths.SESSION_DIR_ENV, None)
    args.cwd = demo.cwd
    if args.command not in ("fork", "clone") and not getattr(args, "print", False):
        folder = os.path.dirname(demo.agent_dir)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _remove_on_signals(folder)


def _remove_on_signals(folder: str) -> None:
    """A closed terminal (SIGHUP) or a kill (SIGTERM) ends the process without running atexit:
    remove ``folder`` first, then end as that signal would have."""
    import shutil
    import signal

    def removed_then_ended(signum: int, _frame: object) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, removed_then_ended)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
