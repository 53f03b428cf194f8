"""The ``pitui`` command line. Never imports textual: the commands below work without a terminal UI."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pitui.safe_text import safe
from pitui.store import paths
from pitui.store.jsonl import MISSING, dumps
from pitui.ui.format import format_age

if TYPE_CHECKING:
    from types import ModuleType

    from pitui.store.reader import Session


class CliError(Exception):
    """A user error: printed as one line, exit status 1, nothing written."""


def _json_out(value: Any) -> None:
    sys.stdout.buffer.write(dumps(value) + b"\n")


def _pretty_json_out(value: Any, prepared: bool = False) -> None:
    sys.stdout.buffer.write(dumps(value, indent=True, prepared=prepared) + b"\n")


# ---------------------------------------------------------------------- sessions by name


def resolve_session(ref: str, cwd: str, session_dir: str | None) -> str:
    """A session by path, or by a prefix of its id as ``pi --session`` takes it:
    this folder's sessions first, then every project's."""
    if "/" in ref or "\\" in ref or ref.endswith(".jsonl"):
        if not os.path.exists(ref):
            raise CliError(f"{ref}: no such file")
        if os.path.isdir(ref):
            raise CliError(f"{ref}: is a folder, not a session file")
        if not os.path.isfile(ref):  # a FIFO or a device would block or never end
            raise CliError(f"{ref}: not a regular file")
        return ref
    if not ref.strip():
        raise CliError("an empty session name")
    from pitui.store.catalog.catalog import Catalog

    catalog = Catalog()
    for sessions in (lambda: catalog.list(cwd, session_dir), catalog.list_all):
        matches = {s.path: s for s in sessions() if isinstance(s.id, str) and s.id.startswith(ref)}
        if len(matches) == 1:
            return next(iter(matches))
        if matches:  # pi would take the newest; a write to the wrong session is worse than a question
            shown = ", ".join(f"{s.id} ({s.path})" for s in list(matches.values())[:3])
            raise CliError(f"{len(matches)} sessions match {ref!r}: {shown}; give a longer prefix")
    raise CliError(f"no session found matching {ref!r}")


def _load(path: str) -> Session:
    from pitui.store.reader import NotASessionError, Session

    try:
        session = Session.load(path)
    except NotASessionError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None
    if session.header is None:
        raise CliError(f"{path}: empty file: not a pi session yet")
    return session


# ---------------------------------------------------------------------- commands


def cmd_inspect(args: argparse.Namespace) -> int:
    from pitui.store.canonical import inspect_file
    from pitui.store.reader import NotASessionError

    path = resolve_session(args.session, args.cwd, args.session_dir)
    if args.json:
        try:
            session, report = inspect_file(path)
        except NotASessionError as error:
            raise CliError(str(error)) from None
        except OSError as error:
            raise CliError(f"{path}: {error.strerror or error}") from None
        if session.header is None:
            raise CliError(f"{path}: empty file: not a pi session yet")
        _pretty_json_out(report, prepared=True)
    else:
        session = _load(path)
        _print_summary(session)
    for problem in [*session.problems, *session.structure_problems()]:
        print(f"pitui: {safe(str(problem))}", file=sys.stderr)
    return 0


def _print_summary(session: Session) -> None:
    header = session.header or {}
    tree = session.tree()
    branch_points = sum(1 for kids in tree.children.values() if len(kids) > 1)
    context = session.context()
    print(f"file      {safe(str(session.path))}")
    print(f"id        {safe(str(header.get('id')))}")
    print(f"cwd       {safe(session.cwd)}")
    if session.name:
        print(f"name      {safe(session.name)}")
    if isinstance(header.get("parentSession"), str):
        print(f"forked    {safe(header['parentSession'])}")
    if session.migrated:
        print(f"version   {session.original_version if session.original_version is not MISSING else 1} "
              "(read as 3; rewritten only when you write to it)")
    print(f"entries   {len(session.entries)}  roots {len(tree.roots)}  branch points {branch_points}  "
          f"labels {len(session.labels)}")
    print(f"leaf      {safe(str(session.leaf_id))}")
    model = context.model or {}
    print(f"context   {len(context.messages)} messages  model {safe(str(model.get('provider', '-')))}/"
          f"{safe(str(model.get('modelId', '-')))}  thinking {safe(str(context.thinking_level))}")


def _one_line(text: str, width: int) -> str:
    text = " ".join(safe(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_rows(sessions: Sequence[Any], show_cwd: bool) -> None:
    now_ms = time.time() * 1000
    home = os.path.expanduser("~")
    for info in sessions:
        title = info.name or info.first_message
        where = ""
        if show_cwd and info.cwd:
            cwd = "~" + info.cwd[len(home):] if info.cwd.startswith(home) else info.cwd
            where = f"  {safe(cwd)}"
        print(f"{safe(str(info.id))[:8]:8}  {format_age(info.modified, now_ms):>4}  {info.message_count:>5}  "
              f"{_one_line(title, 72)}{where}")


def _listing(catalog: Any, args: argparse.Namespace) -> list[Any]:
    """This folder's sessions, or with --all every project's. A custom session folder
    (--session-dir, $PI_CODING_AGENT_SESSION_DIR) holds every project flat: "all" is that
    whole folder there, as newer pi's listAll(dir) has it."""
    if not args.all:
        return catalog.list(args.cwd, args.session_dir)
    folder, custom = paths.session_dir_for(args.cwd, args.session_dir)
    return catalog.list_dir(folder) if custom else catalog.list_all()


def _catalog_list(args: argparse.Namespace) -> list[Any]:
    from pitui.store.catalog.catalog import Catalog

    catalog = Catalog()
    sessions = _listing(catalog, args)
    for problem in catalog.problems:
        print(f"pitui: skipped {safe(problem.path)}: {safe(problem.reason)}", file=sys.stderr)
    return sessions


def cmd_ls(args: argparse.Namespace) -> int:
    sessions = _catalog_list(args)
    if args.json:
        _json_out([s.to_json() for s in sessions])
    elif not sessions:
        folder = paths.listed_folder(args.cwd, args.session_dir, None, args.all)
        hint = "" if args.all else " (try --all)"
        print(f"No sessions found in {safe(folder)}{hint}", file=sys.stderr)
        misplaced = paths.misplaced_agent_dir()
        if misplaced:
            print(f"pitui: {safe(misplaced)}", file=sys.stderr)
    else:
        _print_rows(sessions, show_cwd=args.all)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from pitui.store.catalog.catalog import Catalog
    from pitui.store.query import QueryError

    catalog = Catalog()
    scope = _listing(catalog, args)
    try:
        hits = catalog.search(args.query, scope=scope)
    except QueryError as error:
        raise CliError(str(error)) from None
    if args.json:
        _json_out([{**hit.info.to_json(), "score": hit.score, "snippet": hit.snippet,
                    "spans": hit.spans, "field": hit.field, "entryId": hit.entry_id, "role": hit.role}
                   for hit in hits])
        return 0
    if not hits:
        print("No matching sessions", file=sys.stderr)
        return 1
    for hit in hits:
        _print_rows([hit.info], show_cwd=args.all)
        if hit.snippet:
            print(f"          {_one_line(hit.snippet, 100)}")
    return 0


def _actions() -> ModuleType:
    """The writing actions, imported only by the commands that write."""
    from pitui.store.write import actions

    return actions


def _write_action(func: Any, *call_args: Any) -> Any:
    from pitui.store.reader import NotASessionError
    from pitui.store.write.actions import ActionError

    try:
        return func(*call_args)
    except (ActionError, NotASessionError) as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"{error.filename or ''}: {error.strerror or error}".lstrip(": ")) from None


def cmd_label(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    entry_id = _write_action(_actions().set_label, path, args.entry, args.text)
    print(entry_id)
    return 0


def cmd_rename(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    print(_write_action(_actions().rename, path, args.name))
    return 0


def cmd_branch(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    result = _write_action(_actions().branch, path, args.entry, args.summary)
    if result.entry_id is None:
        print("Already at this point: nothing written", file=sys.stderr)
    else:
        print(result.entry_id)
        if result.summary_dropped:
            print("No summary written: this move leaves no messages behind (as pi does)", file=sys.stderr)
    if result.prompt_text:
        print("The chosen message, to ask again:", file=sys.stderr)
        print(safe(result.prompt_text, multiline=True), file=sys.stderr)
    return 0


def cmd_fork(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    print(_write_action(_actions().fork, path, args.entry))
    return 0


def cmd_clone(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    print(_write_action(_actions().clone, path))
    return 0


def cmd_trash(args: argparse.Namespace) -> int:
    path = resolve_session(args.session, args.cwd, args.session_dir)
    _write_action(_actions().trash, path)
    print(f"Moved to the trash: {path}", file=sys.stderr)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from pitui.store.export import export_html, export_markdown

    path = resolve_session(args.session, args.cwd, args.session_dir)
    session = _load(path)
    leaf: Any = MISSING
    if args.leaf:
        leaf = _write_action(_actions().resolve_entry, session, args.leaf).id
    text = export_html(session, leaf) if args.format == "html" else export_markdown(session, leaf)
    text = text.encode("utf-8", "replace").decode()  # lone surrogates cannot be written
    if args.output:
        _write_whole(args.output, text)
    else:
        sys.stdout.write(safe(text, multiline=True) if sys.stdout.isatty() else text)
    return 0


def _write_whole(path: str, text: str) -> None:
    """Write a file so that it is never seen half-written (an existing one is replaced whole)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".pitui-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


# ---------------------------------------------------------------------- parsing


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pitui")
    except PackageNotFoundError:  # running from a source tree
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (the lookup costs more than a listing)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit", default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(f"pitui {_version()}")
        parser.exit()


# Example invocations shown under each command's --help. A session is named by its file or a
# prefix of its id; the ids below are the demo's (add --demo to try any of them on a copy).
EXAMPLES: dict[str, tuple[str, ...]] = {
    "app": (
        "pitui                             the picker on this folder's sessions",
        "pitui --all                       the picker on every project's sessions",
        "pitui --demo 019cf5ce             a session's view, on a copy of the demo sessions",
        'pi --session "$(pitui --print)"   choose a session, then resume it in pi',
    ),
    "commands": (
        "pitui ls --all",
        "pitui search 'cache reboot'",
        "pitui inspect 019cf5ce",
        "pitui COMMAND --help",
    ),
    "inspect": (
        "pitui inspect 019cf5ce",
        "pitui inspect ~/.pi/agent/sessions/--home-me-proj--/SESSION.jsonl --json",
        "pitui inspect --demo 019cf5ce --json",
    ),
    "ls": (
        "pitui ls",
        "pitui ls --all",
        "pitui ls --all --json | jq -r '.[].path'",
    ),
    "search": (
        "pitui search 'cache reboot'",
        "pitui search '\"--no-cache\"' --all",
        "pitui search 're:time\\.(monotonic|time)' --all --json",
    ),
    "label": (
        "pitui label 019cf5ce f24d81fc repro     label an entry",
        "pitui label 019cf5ce f24d81fc           clear its label",
    ),
    "rename": (
        "pitui rename 019cf5ce 'Cache expiry after reboot'",
        "pitui rename 019cf5ce ''                clear the name",
    ),
    "branch": (
        "pitui branch 019cf5ce f24d81fc",
        "pitui branch 019cf5ce f24d81fc --summary 'Tried time.time(); reverted it'",
        "pitui branch 019cf5ce 61404ca3          a user message: the leaf moves to its parent",
    ),
    "fork": (
        "pitui fork 019cf5ce f24d81fc",
        'pi --session "$(pitui fork 019cf5ce f24d81fc)"',
    ),
    "clone": (
        "pitui clone 019cf5ce",
        'pi --session "$(pitui clone 019cf5ce)"',
    ),
    "trash": (
        "pitui trash 019cf5ce",
        "pitui trash ~/.pi/agent/sessions/--home-me-proj--/SESSION.jsonl",
    ),
    "export": (
        "pitui export 019cf5ce > session.md",
        "pitui export 019cf5ce --format html -o session.html",
        "pitui export 019cf5ce --leaf f24d81fc",
    ),
}


def _examples(name: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])


def build_parser() -> argparse.ArgumentParser:
    def common_options(suppress: bool) -> argparse.ArgumentParser:
        # Given before or after the command: the subcommand's copy must not reset the value
        # given before it, so there its default is "absent".
        default = {"default": argparse.SUPPRESS} if suppress else {}
        options = argparse.ArgumentParser(add_help=False)
        options.add_argument("--demo", action="store_true", help="work on a fresh copy of the bundled demo sessions",
                             **default)
        options.add_argument("--session-dir", metavar="DIR", help="the session folder (as pi's --session-dir)",
                             **default)
        return options

    common = common_options(suppress=True)
    parser = argparse.ArgumentParser(prog="pitui", parents=[common_options(suppress=False)],
                                     description="Browse, search and edit pi coding-agent sessions.",
                                     epilog=_examples("commands"),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, func: Any, help: str) -> argparse.ArgumentParser:
        command = sub.add_parser(name, parents=[common], help=help, description=help, epilog=_examples(name),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        command.set_defaults(func=func)
        return command

    session_help = "session file, or a unique prefix of its id"
    entry_help = "entry id, or a unique prefix of it"
    p = add("inspect", cmd_inspect, "show a session (--json: the oracle's canonical JSON)")
    p.add_argument("session", help=session_help)
    p.add_argument("--json", action="store_true", help="print the session as the pi oracle's canonical JSON")
    p = add("ls", cmd_ls, "list sessions of this folder (--all: every project), newest first")
    p.add_argument("--all", action="store_true", help="every project's sessions")
    p.add_argument("--json", action="store_true", help="one JSON array of sessions")
    p = add("search", cmd_search, 'search sessions: words (fuzzy), "exact phrase", re:regex')
    p.add_argument("query", help='fuzzy words, "exact phrase" or re:regex, as in pi\'s /resume')
    p.add_argument("--all", action="store_true", help="search every project's sessions")
    p.add_argument("--json", action="store_true", help="one JSON array of matches, with snippets")
    p = add("label", cmd_label, "label an entry (no text clears the label)")
    p.add_argument("session", help=session_help)
    p.add_argument("entry", help=entry_help)
    p.add_argument("text", nargs="?", help="the label; left out, the label is cleared")
    p = add("rename", cmd_rename, "name a session (an empty name clears it)")
    p.add_argument("session", help=session_help)
    p.add_argument("name", help="the new name ('' clears it)")
    p = add("branch", cmd_branch, "move the session's leaf to an entry, so pi continues from there")
    p.add_argument("session", help=session_help)
    p.add_argument("entry", help=entry_help)
    p.add_argument("--summary", metavar="TEXT", help="a summary of the branch being left")
    p = add("fork", cmd_fork, "new session with the path up to an entry; prints its file")
    p.add_argument("session", help=session_help)
    p.add_argument("entry", help=entry_help)
    p = add("clone", cmd_clone, "new session with the active path; prints its file")
    p.add_argument("session", help=session_help)
    p = add("trash", cmd_trash, "move a session file to the trash")
    p.add_argument("session", help=session_help)
    p = add("export", cmd_export, "export the active path (or --leaf) as Markdown or HTML")
    p.add_argument("session", help=session_help)
    p.add_argument("--leaf", metavar="ENTRY", help="export the path to this entry instead of the active path")
    p.add_argument("--format", choices=["md", "html"], default="md", help="md (default) or html")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    return parser


def _first_positional(argv: Sequence[str]) -> str | None:
    """The first argument that is not an option (nor an option's value)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--":
            return None
        elif arg == "--session-dir":
            skip = True
        elif not arg.startswith("-") or arg == "-":
            return arg
    return None


def build_app_parser(commands: Sequence[str]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitui",
        description="Browse, search and edit pi coding-agent sessions. With no arguments, opens the "
                    "session picker for this folder; with a session, opens its tree and conversation.",
        epilog=f"commands (pitui COMMAND --help): {', '.join(commands)}\n\n{_examples('app')}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("session", nargs="?", help="a session file, or a unique prefix of its id, to open")
    parser.add_argument("--all", action="store_true", help="start the picker on every project's sessions")
    parser.add_argument("--print", action="store_true",
                        help="print the chosen session's file and exit (for the shell: cd, pi --session ...)")
    parser.add_argument("--demo", action="store_true", help="work on a fresh copy of the bundled demo sessions")
    parser.add_argument("--session-dir", metavar="DIR", help="the session folder (as pi's --session-dir)")
    parser.add_argument("--version", action=_VersionAction)
    return parser


def run_app(args: argparse.Namespace) -> int:
    """The full-screen app; afterwards, whatever the user chose to do on leaving it."""
    from pitui.config import load_config

    config = load_config()
    open_path = resolve_session(args.session, args.cwd, args.session_dir) if args.session else None
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise CliError("the app needs a terminal (for scripts, see pitui --help for the commands)")
    from pitui.ui.app import PituiApp

    app = PituiApp(cwd=args.cwd, session_dir=args.session_dir, scope="all" if args.all else "current",
                   open_path=open_path, print_mode=args.print, config=config)
    result = app.run()
    if result is None:
        return app.return_code or 0
    return finish_app(result, config)


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = list(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    if _first_positional(argv) not in commands:
        parser = build_app_parser(commands)
    args = parser.parse_args(argv)
    args.cwd = os.getcwd()
    if not hasattr(args, "command"):
        args.command = None
        args.func = run_app
    # A command builds large object graphs without reference cycles: the cyclic collector
    # would only walk them again and again.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        if args.demo:
            _use_demo(args)
        return args.func(args)
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
    finally:
        if gc_was_enabled:
            gc.enable()


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

