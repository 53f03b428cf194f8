"""The command line's commands (inspect, ls, search, export and the writes): each one reads its
arguments, does its work, prints, and returns the exit status. None of them imports textual."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from pitui.cli.compare import cmd_compare
from pitui.cli.resolve import CliError, load_session, resolve_session
from pitui.safe_text import safe
from pitui.store import paths
from pitui.store.jsonl import MISSING, dumps

if TYPE_CHECKING:
    from types import ModuleType

    from pitui.store.reader import Session
    from pitui.store.totals import SessionStats


def _json_out(value: Any, prepared: bool = False) -> None:
    sys.stdout.buffer.write(dumps(value, prepared=prepared) + b"\n")


def _pretty_json_out(value: Any, prepared: bool = False) -> None:
    out = sys.stdout.buffer
    out.write(dumps(value, indent=True, prepared=prepared))  # not joined to the newline: a big report is not copied
    out.write(b"\n")


# ---------------------------------------------------------------------- reading


def cmd_inspect(args: argparse.Namespace) -> int:
    from pitui.store.canonical import inspect_session

    path = resolve_session(args.session, args.cwd, args.session_dir)
    if args.json:
        session = load_session(path)
        report = inspect_session(session)
        problems = [*session.problems, *session.structure_problems()]
        # The report is all that is printed: the entries' memory goes before its text is made
        # (at 100,000 entries its peak is then that of the read, not the read's and the text's).
        del session
        _pretty_json_out(report, prepared=True)
    else:
        session = load_session(path)
        _print_summary(session)
        problems = [*session.problems, *session.structure_problems()]
    for problem in problems:
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
        print(
            f"version   {session.original_version if session.original_version is not MISSING else 1} "
            "(read as 3; rewritten only when you write to it)"
        )
    print(
        f"entries   {len(session.entries)}  roots {len(tree.roots)}  branch points {branch_points}  "
        f"labels {len(session.labels)}"
    )
    print(f"leaf      {safe(str(session.leaf_id))}")
    model = context.model or {}
    print(
        f"context   {len(context.messages)} messages  model {safe(str(model.get('provider', '-')))}/"
        f"{safe(str(model.get('modelId', '-')))}  thinking {safe(str(context.thinking_level))}"
    )
    _print_totals(session.stats())

    from pitui.store.pi_verdict import PI_VERSION, pi_verdicts

    for verdict in pi_verdicts(session):
        print(f"pi {PI_VERSION:<6} {safe(str(verdict))}")


def _print_totals(stats: SessionStats) -> None:
    """pi's /session totals: messages, tool calls, tokens (input as pi counts it: with the cache
    reads and writes) and cost."""
    print(
        f"messages  {stats.total_messages:,} (user {stats.user_messages:,}, assistant "
        f"{stats.assistant_messages:,}); tools {stats.tool_calls:,} calls, {stats.tool_results:,} results"
    )
    prompt = stats.input + stats.cache_read + stats.cache_write
    print(
        f"tokens    {stats.total_tokens:,} (input {prompt:,}: cached {stats.cache_read:,}, uncached "
        f"{stats.input + stats.cache_write:,}; output {stats.output:,})  cost ${stats.cost:,.3f}"
    )
    if stats.error is not None:
        print(f"note      pi 1.6's /session fails on this file ({safe(stats.error)}); totals without that usage")


def _one_line(text: str, width: int) -> str:
    text = " ".join(safe(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_rows(sessions: Sequence[Any], show_cwd: bool) -> None:
    from pitui.ui.format import format_age  # (rich: not for the commands that print JSON)

    now_ms = time.time() * 1000
    home = os.path.expanduser("~")
    for info in sessions:
        title = info.name or info.first_message
        where = ""
        if show_cwd and info.cwd:
            cwd = "~" + info.cwd[len(home) :] if info.cwd.startswith(home) else info.cwd
            where = f"  {safe(cwd)}"
        print(
            f"{safe(str(info.id))[:8]:8}  {format_age(info.modified, now_ms):>4}  {info.message_count:>5}  "
            f"{_one_line(title, 72)}{where}"
        )


def _listing(catalog: Any, args: argparse.Namespace) -> list[Any]:
    """This folder's sessions, or with --all every project's. A custom session folder
    (--session-dir, $PI_CODING_AGENT_SESSION_DIR) holds every project flat: "all" is that
    whole folder there, as newer pi's listAll(dir) has it."""
    if not args.all:
        return catalog.list(args.cwd, args.session_dir)
    folder, custom = paths.session_dir_for(args.cwd, args.session_dir)
    return catalog.list_dir(folder) if custom else catalog.list_all()


def _catalog_list(args: argparse.Namespace) -> list[Any]:
    from pitui.store.catalog import Catalog

    catalog = Catalog()
    sessions = _listing(catalog, args)
    for problem in catalog.problems:
        print(f"pitui: skipped {safe(problem.path)}: {safe(problem.reason)}", file=sys.stderr)
    return sessions


def cmd_ls(args: argparse.Namespace) -> int:
    sessions = _catalog_list(args)
    if args.json:
        _json_out([s.prepared_json() for s in sessions], prepared=True)
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
    from pitui.store.catalog import Catalog
    from pitui.store.query import QueryError

    catalog = Catalog()
    scope = _listing(catalog, args)
    if args.entries:
        from pitui.cli import entries

        return entries.run(catalog, scope, args.query, args.json)
    try:
        hits = catalog.search(args.query, scope=scope)
    except QueryError as error:
        raise CliError(str(error)) from None
    if args.json:
        _json_out(
            [
                {
                    **hit.info.to_json(),
                    "score": hit.score,
                    "snippet": hit.snippet,
                    "spans": hit.spans,
                    "field": hit.field,
                    "entryId": hit.entry_id,
                    "role": hit.role,
                }
                for hit in hits
            ]
        )
        return 0
    if not hits:
        print("No matching sessions", file=sys.stderr)
        return 1
    for hit in hits:
        _print_rows([hit.info], show_cwd=args.all)
        if hit.snippet:
            print(f"          {_one_line(hit.snippet, 100)}")
    return 0


# ---------------------------------------------------------------------- writing


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


def _print_result(result: Any, path: str) -> None:
    print(result)


def _print_trashed(result: Any, path: str) -> None:
    print(f"Moved to the trash: {path}", file=sys.stderr)


def _print_branched(result: Any, path: str) -> None:
    if result.entry_id is None:
        print("Already at this point: nothing written", file=sys.stderr)
    else:
        print(result.entry_id)
        if result.summary_dropped:
            print("No summary written: this move leaves no messages behind (as pi does)", file=sys.stderr)
    if result.prompt_text:
        print("The chosen message, to ask again:", file=sys.stderr)
        print(safe(result.prompt_text, multiline=True), file=sys.stderr)


class _Write(NamedTuple):
    """A command that writes: ``actions.<action>(path, *args.<fields>)``, then ``report``."""

    action: str  # a function of pitui.store.write.actions
    fields: tuple[str, ...]  # the arguments after the session's file
    report: Callable[[Any, str], None]  # prints the action's result (given the session's file)


WRITES: dict[str, _Write] = {
    "label": _Write("set_label", ("entry", "text"), _print_result),  # prints the label entry's id
    "rename": _Write("rename", ("name",), _print_result),  # the session_info entry's id
    "branch": _Write("branch", ("entry", "summary"), _print_branched),
    "fork": _Write("fork", ("entry",), _print_result),  # the new file
    "clone": _Write("clone", (), _print_result),  # the new file
    "trash": _Write("trash", (), _print_trashed),
}


def cmd_write(args: argparse.Namespace) -> int:
    """One of :data:`WRITES`, on the session the arguments name."""
    write = WRITES[args.command]
    path = resolve_session(args.session, args.cwd, args.session_dir)
    result = _write_action(getattr(_actions(), write.action), path, *(getattr(args, f) for f in write.fields))
    write.report(result, path)
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    """``pitui context omit|restore|replace SESSION ENTRY``: the context_edit entries written
    on standard output, one id a line; what they do on standard error."""
    note: str | None = args.note
    if args.operation == "replace":
        if (note is None) == (args.from_file is None):
            raise CliError("replace needs the note: --note TEXT or --from-file FILE")
        if args.from_file is not None:
            try:
                note = sys.stdin.read() if args.from_file == "-" else _read_text(args.from_file)
            except OSError as error:
                raise CliError(f"{args.from_file}: {error.strerror or error}") from None
    elif note is not None or args.from_file is not None:
        raise CliError(f"{args.operation} takes no note (--note and --from-file are for replace)")
    path = resolve_session(args.session, args.cwd, args.session_dir)
    done, ids = _write_action(_actions().context_edit, path, args.operation, args.entry, note)
    for entry_id in ids:
        print(entry_id)
    print(safe(f"{done}: wrote {len(ids)} context_edit {'entry' if len(ids) == 1 else 'entries'}"), file=sys.stderr)
    return 0


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


# ---------------------------------------------------------------------- export


def cmd_export(args: argparse.Namespace) -> int:
    from pitui.store.export import export_html, export_markdown

    path = resolve_session(args.session, args.cwd, args.session_dir)
    session = load_session(path)
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
    import tempfile  # (not at the top: every command's start-up would pay for it)

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


def _usage_command(args: argparse.Namespace) -> int:
    from pitui.cli.usage import cmd_usage

    return cmd_usage(args)


# Every command's code, by the name parser.COMMANDS gives it.
RUN: dict[str, Callable[[argparse.Namespace], int]] = {
    "inspect": cmd_inspect,
    "ls": cmd_ls,
    "search": cmd_search,
    "usage": lambda args: _usage_command(args),
    **dict.fromkeys(WRITES, cmd_write),
    "context": cmd_context,
    "export": cmd_export,
    "compare": cmd_compare,
}
