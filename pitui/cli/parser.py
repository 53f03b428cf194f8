"""The command line's grammar: the commands and their arguments, --help with examples, --version.

Building a parser imports nothing of pitui's: ``pitui --help`` answers at once.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NamedTuple


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
        "pitui search --entries '\"flaky test\"' --all",
    ),
    "usage": (
        "pitui usage                             this folder's tokens and cost per day",
        "pitui usage --all --by model            every project's, per provider/model",
        "pitui usage --all --by project --days 30 --json",
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
    "context": (
        "pitui context omit 019cf5ce f24d81fc      the model no longer sees the entry (nor its tool results)",
        "pitui context restore 019cf5ce f24d81fc   it sees it as written again",
        "pitui context replace 019cf5ce f24d81fc --note '[omitted: read src/x.py, 412 lines]'",
        "pitui context replace 019cf5ce f24d81fc --from-file note.md",
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
    "compare": (
        "pitui compare 019cf5ce 7b20764b 516710ee     the two branches from their common entry",
        "pitui compare 019cf5ce 7b20764b 516710ee --json",
    ),
    "export": (
        "pitui export 019cf5ce > session.md",
        "pitui export 019cf5ce --format html -o session.html",
        "pitui export 019cf5ce --leaf f24d81fc",
    ),
}


class _Argument(NamedTuple):
    """One ``add_argument`` call: its names and its options."""

    names: tuple[str, ...]
    options: dict[str, Any]


def _arg(*names: str, **options: Any) -> _Argument:
    return _Argument(names, options)


class Command(NamedTuple):
    """A command: its one-line help (also its description) and its arguments, in order."""

    help: str
    arguments: tuple[_Argument, ...]


_SESSION = _arg("session", help="session file, or a unique prefix of its id")
_ENTRY = _arg("entry", help="entry id, or a unique prefix of it")

# The commands, in the order --help lists them. Each one's code is commands.RUN[name].
COMMANDS: dict[str, Command] = {
    "inspect": Command(
        "show a session (--json: the oracle's canonical JSON)",
        (
            _SESSION,
            _arg("--json", action="store_true", help="print the session as the pi oracle's canonical JSON"),
        ),
    ),
    "ls": Command(
        "list sessions of this folder (--all: every project), newest first",
        (
            _arg("--all", action="store_true", help="every project's sessions"),
            _arg("--json", action="store_true", help="one JSON array of sessions"),
        ),
    ),
    "search": Command(
        'search sessions: words (fuzzy), "exact phrase", re:regex',
        (
            _arg("query", help='fuzzy words, "exact phrase" or re:regex, as in pi\'s /resume'),
            _arg("--all", action="store_true", help="search every project's sessions"),
            _arg("--json", action="store_true", help="one JSON array of matches, with snippets"),
            _arg("--entries", action="store_true", help="list the matching messages, not sessions"),
        ),
    ),
    "usage": Command(
        "tokens and cost per day, project or model, as pi's /session totals count them",
        (
            _arg("--all", action="store_true", help="every project's sessions"),
            _arg("--by", choices=["day", "project", "model"], default="day", help="day (default), project or model"),
            _arg("--days", type=int, metavar="N", help="only the last N days, today included"),
            _arg("--json", action="store_true", help="one JSON object: the buckets and the total"),
        ),
    ),
    "label": Command(
        "label an entry (no text clears the label)",
        (
            _SESSION,
            _ENTRY,
            _arg("text", nargs="?", help="the label; left out, the label is cleared"),
        ),
    ),
    "rename": Command(
        "name a session (an empty name clears it)",
        (
            _SESSION,
            _arg("name", help="the new name ('' clears it)"),
        ),
    ),
    "branch": Command(
        "move the session's leaf to an entry, so pi continues from there",
        (
            _SESSION,
            _ENTRY,
            _arg("--summary", metavar="TEXT", help="a summary of the branch being left"),
        ),
    ),
    "context": Command(
        "omit an entry from the model's context, restore it, or replace it with a note",
        (
            _arg("operation", choices=["omit", "restore", "replace"], help="omit, restore or replace"),
            _SESSION,
            _ENTRY,
            _arg("--note", metavar="TEXT", help="replace: the note the model sees instead"),
            _arg("--from-file", metavar="FILE", help="replace: the note, read from FILE (- : standard input)"),
        ),
    ),
    "fork": Command(
        "new session with the path up to an entry; prints its file",
        (
            _SESSION,
            _ENTRY,
        ),
    ),
    "clone": Command("new session with the active path; prints its file", (_SESSION,)),
    "trash": Command("move a session file to the trash", (_SESSION,)),
    "compare": Command(
        "compare two branches: prompts, answers, files, commands, errors, tokens",
        (
            _SESSION,
            _arg("a", metavar="A", help="an entry id (or a unique prefix): the end of one branch"),
            _arg("b", metavar="B", help="an entry id (or a unique prefix): the end of the other"),
            _arg("--json", action="store_true", help="the comparison as one JSON object"),
        ),
    ),
    "export": Command(
        "export the active path (or --leaf) as Markdown or HTML",
        (
            _SESSION,
            _arg("--leaf", metavar="ENTRY", help="export the path to this entry instead of the active path"),
            _arg("--format", choices=["md", "html"], default="md", help="md (default) or html"),
            _arg("-o", "--output", metavar="FILE", help="write to FILE instead of standard output"),
        ),
    ),
}


def _examples(name: str) -> str:
    return "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[name])


def _common_options(suppress: bool) -> argparse.ArgumentParser:
    # Given before or after the command: the subcommand's copy must not reset the value
    # given before it, so there its default is "absent".
    default = {"default": argparse.SUPPRESS} if suppress else {}
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--demo", action="store_true", help="work on a fresh copy of the bundled demo sessions", **default
    )
    options.add_argument("--session-dir", metavar="DIR", help="the session folder (as pi's --session-dir)", **default)
    return options


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """``pitui COMMAND ...``: the parser of the commands (``args.command`` names the one given).
    ``only``: of that command alone, which is all a command line needs (argparse looks up the
    translations of every parser's and option's messages on disk, fifteen commands' worth at
    each start)."""
    common = _common_options(suppress=True)
    parser = argparse.ArgumentParser(
        prog="pitui",
        parents=[_common_options(suppress=False)],
        description="Browse, search and edit pi coding-agent sessions.",
        epilog=_examples("commands"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if only is not None and name != only:
            continue
        p = sub.add_parser(
            name,
            parents=[common],
            help=command.help,
            description=command.help,
            epilog=_examples(name),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for argument in command.arguments:
            p.add_argument(*argument.names, **argument.options)
    return parser


def build_app_parser() -> argparse.ArgumentParser:
    """``pitui [SESSION]``: the parser of the app's options (no ``args.command``)."""
    parser = argparse.ArgumentParser(
        prog="pitui",
        description="Browse, search and edit pi coding-agent sessions. With no arguments, opens the "
        "session picker for this folder; with a session, opens its tree and conversation.",
        epilog=f"commands (pitui COMMAND --help): {', '.join(COMMANDS)}\n\n{_examples('app')}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("session", nargs="?", help="a session file, or a unique prefix of its id, to open")
    parser.add_argument("--all", action="store_true", help="start the picker on every project's sessions")
    parser.add_argument(
        "--print",
        action="store_true",
        help="print the chosen session's file and exit (for the shell: cd, pi --session ...)",
    )
    parser.add_argument("--demo", action="store_true", help="work on a fresh copy of the bundled demo sessions")
    parser.add_argument("--session-dir", metavar="DIR", help="the session folder (as pi's --session-dir)")
    parser.add_argument("--version", action=_VersionAction)
    return parser


def first_positional(argv: Sequence[str]) -> str | None:
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


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The commands' parser when ``argv`` names a command, else the app's."""
    name = first_positional(argv)
    if name not in COMMANDS:
        return build_app_parser()
    # Help asked for before the command lists every command; any other line needs its own.
    return build_parser(None if _HELP.intersection(argv) else name)


_HELP = frozenset({"-h", "--help"})
