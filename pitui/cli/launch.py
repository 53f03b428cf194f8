"""``pitui`` with no command: the full-screen app, then what the user chose on leaving it
(print a session's file, or become ``pi --session`` on it). The only part of the command line
that imports textual, and only when the app starts."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from pitui.cli.resolve import CliError, resolve_session
from pitui.safe_text import safe

if TYPE_CHECKING:
    from pitui.ui.app import PituiApp


def run_app(args: argparse.Namespace) -> int:
    """The full-screen app; afterwards, whatever the user chose to do on leaving it."""
    from pitui.config import load_config

    config = load_config()
    open_path = resolve_session(args.session, args.cwd, args.session_dir) if args.session else None
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CliError("the app needs a terminal (for scripts, see pitui --help for the commands)")
    from pitui.store import tuning

    tuning.start_process_helpers()  # before the app takes sys.stderr: see its docstring

    app = build_app(args, config, open_path)
    result = app.run()
    if result is None:
        return app.return_code or 0
    return finish_app(result, config)


def build_app(args: argparse.Namespace, config: Any, open_path: str | None = None) -> PituiApp:
    """The app as the command line's arguments ask for it (run by :func:`run_app`)."""
    from pitui.ui.app import PituiApp

    return PituiApp(
        cwd=args.cwd,
        session_dir=args.session_dir,
        scope="all" if args.all else "current",
        open_path=open_path,
        print_mode=args.print,
        config=config,
    )


def finish_app(result: Any, config: Any) -> int:
    """What the user chose on leaving the app: print a session's file, or resume it in pi
    (this process becomes the resume command, run in the session's folder)."""
    import shlex
    import shutil

    if result.action == "print":
        print(result.path)
        return 0
    argv = config.resume_argv(result.path)
    program = shutil.which(argv[0])
    if program is None:
        print(f"pitui: {safe(argv[0])} is not installed (not on PATH). To resume the session, run:", file=sys.stderr)
        print(shlex.join(argv))
        return 1
    if result.note:
        print(f"pitui: {safe(result.note)}", file=sys.stderr)
    session_cwd = result.cwd or _session_cwd(result.path)
    if session_cwd:
        os.chdir(session_cwd)  # pi resumes a session in the folder it was made in
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, argv)
    return 0  # pragma: no cover


def _session_cwd(path: str) -> str | None:
    from pitui.store.reader import NotASessionError, Session

    try:
        cwd = Session.load(path).cwd
    except (OSError, NotASessionError):
        return None
    return cwd if cwd and os.path.isdir(cwd) else None
