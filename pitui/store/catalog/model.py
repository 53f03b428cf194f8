"""The records of the catalog: a listed session, a file the listing skipped, a search hit, and
the stored text rows a search and a snippet read."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pitui.store.js import MISSING, iso_ms, js_string
from pitui.store.jsonl import prepare

__all__ = [
    "NO_MESSAGES",
    "ListedFn",
    "ListingCancelled",
    "ListingProblem",
    "ProgressFn",
    "Row",
    "Scope",
    "SearchCancelled",
    "SearchHit",
    "Segment",
    "SessionInfo",
]

# Which sessions a listing holds: this folder's (pi's /resume) or every project's (Tab there).
Scope = Literal["current", "all"]

NO_MESSAGES = "(no messages)"  # pi's firstMessage for a session without a user message with text

# The catalog calls these from the thread that lists or counts, with its cache's lock held: one
# must not wait for another thread that may itself be waiting for the catalog (a UI thread
# closing it, say). Post what is to be shown instead.
ProgressFn = Callable[[int, int], Any]  # (files done, files in all)
# (the rows, the files not listed): a listing's result before the cache is written
ListedFn = Callable[["list[SessionInfo]", "list[ListingProblem]"], Any]


@dataclass(slots=True)
class SessionInfo:
    """One row of pi's session list (``SessionInfo`` in pi), plus the file's size and mtime."""

    path: str
    id: Any  # header.id: a string in every file pi writes, kept as found otherwise
    cwd: str
    name: str | None
    parent_session_path: Any  # header.parentSession (a path string) or None
    created: float | None  # ms since 1970, None when new Date(header.timestamp) is invalid
    modified: float  # ms since 1970 (NaN only when a message timestamp is out of Date's range)
    message_count: int
    first_message: str
    size: int = 0
    mtime_ns: int = 0
    all_messages_text: str | None = None  # filled only on demand (Catalog.load_text)

    @property
    def mtime(self) -> float:
        """The file's mtime in seconds."""
        return self.mtime_ns / 1e9

    @property
    def id_text(self) -> str:
        """The id as pi's search sees it (``${id}``)."""
        return js_string(self.id)

    def to_json(self) -> dict[str, Any]:
        """pi's field names and values, as the oracle's ``list`` prints them."""
        out: dict[str, Any] = {"path": self.path}
        if self.id is not MISSING:
            out["id"] = self.id
        out["cwd"] = self.cwd
        out["name"] = self.name
        out["parentSessionPath"] = None if self.parent_session_path is MISSING else self.parent_session_path
        out["created"] = iso_ms(self.created)
        out["modified"] = iso_ms(self.modified)
        out["messageCount"] = self.message_count
        out["firstMessage"] = self.first_message
        return out

    def prepared_json(self) -> dict[str, Any]:
        """:meth:`to_json` ready for ``dumps(..., prepared=True)``: as it is when the id and the
        parent path are strings (every file pi writes; the other fields are strings, null and
        a count), else through :func:`~pitui.store.jsonl.prepare`."""
        out = self.to_json()
        if type(self.id) is str and (self.parent_session_path is None or type(self.parent_session_path) is str):
            return out
        prepared: dict[str, Any] = prepare(out)
        return prepared


@dataclass(slots=True)
class ListingProblem:
    """A file (or folder) the listing skipped, and why."""

    path: str
    reason: str


@dataclass(slots=True)
class SearchHit:
    """A session that matches a query: its row, pi's score (lower is better) and where it matched.

    ``snippet`` is one line of text around the first match (newlines and control characters
    replaced by spaces), ``spans`` the ``(start, end)`` offsets in ``snippet`` to highlight.
    ``field`` says which part of pi's search text matched: ``"message"`` (then ``entry_id`` and
    ``role`` point to the message), ``"id"``, ``"name"`` or ``"cwd"``.
    """

    info: SessionInfo
    score: float
    snippet: str = ""
    spans: Sequence[tuple[int, int]] = ()  # (none until a snippet is filled in)
    field: str = ""
    entry_id: str | None = None
    role: str | None = None


class SearchCancelled(Exception):
    """A search given up because its ``cancelled`` callback said so (a newer one is on its way)."""


class ListingCancelled(Exception):
    """A listing given up because the catalog is being closed (the program is quitting): the
    files not read yet are not read, and what was read but not yet written to the cache is not
    written (a later listing reads those files again)."""


class Row(NamedTuple):
    """One user or assistant message with text, as a session's stored rows hold it.

    Making a Row costs eight times a plain tuple (0.58 against 0.07 µs), so the paths that make
    one per message keep plain tuples in these fields' order: the scanner (Rows made scanning a
    file of short messages 12% slower), storing a grown session and snippets. What
    ``Catalog.messages`` reads back is Rows.
    """

    offset: int  # byte offset of the line in the file
    entry_id: str | None
    assistant: bool  # else a user message
    text: str
    # ms since 1970: the message's timestamp, else the entry's (getLastActivityTime's rule), or
    # None; never after the session's ``modified`` when positive
    time: float | None


class Segment(NamedTuple):
    """Where a part of a session's search text (``id name allMessagesText cwd``) is."""

    start: int
    end: int
    field: str  # "id", "name", "message" or "cwd"
    entry_id: str | None  # for a message
    role: str | None  # for a message: "user" or "assistant"
