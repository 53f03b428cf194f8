"""A session named on the command line, by its file or a prefix of its id, and read."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pitui.store.reader import Session
    from pitui.store.session_index import IndexCache


T = TypeVar("T")


class CliError(Exception):
    """A user error: printed as one line, exit status 1, nothing written."""


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
    matches = sessions_with_id_prefix(ref, cwd, session_dir)
    if len(matches) == 1:
        return next(iter(matches))
    if matches:  # pi would take the newest; a write to the wrong session is worse than a question
        shown = ", ".join(f"{s.id} ({s.path})" for s in list(matches.values())[:3])
        raise CliError(f"{len(matches)} sessions match {ref!r}: {shown}; give a longer prefix")
    raise CliError(f"no session found matching {ref!r}")


def sessions_with_id_prefix(prefix: str, cwd: str, session_dir: str | None) -> dict[str, Any]:
    """The sessions whose id starts with ``prefix``, by file: this folder's if any match,
    else every project's (empty: none anywhere). The only place the command line asks the
    catalog for a session by id."""
    from pitui.store.catalog import Catalog

    catalog = Catalog()
    for sessions in (lambda: catalog.list(cwd, session_dir), catalog.list_all):
        matches = {s.path: s for s in sessions() if isinstance(s.id, str) and s.id.startswith(prefix)}
        if matches:
            return matches
    return {}


def load_session(path: str) -> Session:
    """The session in ``path``; an unreadable or empty file is a :class:`CliError`. A session
    read before comes from its index in the cache (:func:`session_index`)."""
    from pitui.store.reader import Session

    index = session_index()
    session = read_session(path, lambda p: Session.load(p, index=index))
    write_behind(index)
    return session


def session_index() -> IndexCache:
    """The cache's session indexes, as the app keeps them: a session of 1 MB or more that was
    read before (by a command or by the app) is restored from its index, reading only what was
    appended since; one read whole is noted, to be indexed by :func:`write_behind`. The index is
    only a shortcut: the session is the same either way (:mod:`pitui.store.session_index`)."""
    from pitui.store.session_index import IndexCache

    return IndexCache.default(deferred=True)


def write_behind(index: IndexCache) -> None:
    """Write the indexes ``index`` noted in a detached child process, so that the command goes on
    and ends without waiting for them (the 100,000-entry session's index is 0.15 s of CPU, made
    on another core). A process that cannot fork safely (threads running, no ``os.fork``)
    writes them itself. The index file is replaced whole, so a command started before the child
    is done reads the session whole, as before it was indexed."""
    from pitui.store import tuning

    if not index.pending:
        return
    if not tuning.can_fork():
        index.write_pending()
        return
    try:
        child = os.fork()
    except OSError:
        index.write_pending()
        return
    if child:
        index.discard_pending()  # the writer's now
        os.waitpid(child, 0)  # the go-between, which leaves at once
        return
    # The go-between: forks the writer and leaves, so the command has no child to wait for.
    try:
        if os.fork() == 0:
            _detach()
            index.write_pending()
    except BaseException:  # an index is only a shortcut: nothing to report
        pass
    finally:
        os._exit(0)  # neither the command's exit handlers nor its buffered output: those are its own


def _detach() -> None:
    """The writer's own session (a closed terminal does not stop it halfway), with no terminal
    and none of the command's output: a reader of that output sees its end when the command ends."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)


def read_session(path: str, read: Callable[[str], T]) -> T:
    """``read(path)``, with what can go wrong reading a session file as a :class:`CliError`: not
    a session, unreadable, or empty (no header yet). ``read`` returns a Session, or a tuple that
    starts with one."""
    from pitui.store.model import NotASessionError

    try:
        result = read(path)
    except NotASessionError as error:
        raise CliError(str(error)) from None
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None
    session = result[0] if isinstance(result, tuple) else result
    if session.header is None:
        from pitui.store.pi_verdict import empty_file_verdict

        raise CliError(f"{path}: empty file: not a pi session yet ({empty_file_verdict()})")
    return result
