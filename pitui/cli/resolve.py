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
    return read_session(path, lambda p: Session.load(p, index=index))


def session_index() -> IndexCache:
    """The cache's session indexes, as the app keeps them: a session of 1 MB or more that was
    read before (by a command or by the app) is restored from its index, reading only what was
    appended since; one read whole is indexed at the end of its read. The index is only a
    shortcut: the session is the same either way (:mod:`pitui.store.session_index`)."""
    from pitui.store.session_index import IndexCache

    return IndexCache.default()


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
