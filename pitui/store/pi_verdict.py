"""What pi 1.6.0 does with a file that pitui reads: where it fails, and with which error.

pi 1.6.0 cannot load or use some files pitui reads (reference pi-1.6.md §6, B4, B5, B13 and
F11): a UTF-8 byte order mark or other whitespace before the header, a ``parentId`` cycle on
the path to the leaf, a ``message`` entry without a message, a ``context_edit`` without
``replacement``, a session name that is not a string. :func:`pi_verdicts` lists each such
failure, in the order pi meets them, with the error pi throws, so that ``pitui inspect`` can say
what pi would do. An empty list: pi 1.6.0 reads the file as pitui does.
"""

from __future__ import annotations

import json
import os
from typing import Any

from msgspec import Struct

from pitui.store.context import EDITABLE_ROLES, ProjectedEntry, has_replacement
from pitui.store.js import MISSING, js_trim, js_truthy
from pitui.store.reader import Session

PI_VERSION = "1.6.0"
_HEADER_WINDOW = 1 << 20  # how far past the header's offset its line is looked for

# When pi fails: opening the file, building the model's context, or reading the session name.
OPEN, CONTEXT, NAME = "open", "context", "name"


class Verdict(Struct, frozen=True):
    """One way pi 1.6.0 fails on the file: ``at`` which step, the error it throws (``None``
    when it dies without one), and why, in words."""

    at: str
    error_name: str | None
    error_message: str | None
    why: str

    def as_json(self) -> dict[str, Any]:
        error = None if self.error_name is None else {"name": self.error_name, "message": self.error_message}
        return {"at": self.at, "error": error, "why": self.why}

    def __str__(self) -> str:
        error = f" ({self.error_name}: {self.error_message})" if self.error_name else ""
        return f"fails at {self.at}: {self.why}{error}"


def pi_verdicts(session: Session, projection: list[ProjectedEntry] | None = None) -> list[Verdict]:
    """How pi 1.6.0 fails on ``session``'s file, step by step (empty: it does not).
    ``projection``: ``session.projection()`` where the caller has it already."""
    opened = _open_verdict(session)
    if opened is not None:
        return [opened]  # pi stops there
    out = []
    context = _context_verdict(session, projection)
    if context is not None:
        out.append(context)
    name = _name_verdict(session)
    if name is not None:
        out.append(name)
    return out


def empty_file_verdict() -> str:
    """What pi 1.6.0 does with an empty (0-byte) file: it is the only file pi writes on open."""
    return f"pi {PI_VERSION} would write a new session header into it when it opens it"


# ----------------------------------------------------------------------------------------------
# open


def _open_verdict(session: Session) -> Verdict | None:
    """pi 1.6.0 no longer trims the file: the first line it can parse (``JSON.parse`` allows
    only spaces, tabs and line ends around a value) to a truthy value must be the header."""
    if session.path is None:
        return None
    window = session.header_offset + _HEADER_WINDOW
    try:
        with open(session.path, "rb") as file:
            head = file.read(window)
    except OSError:
        return None
    for line in head.split(b"\n"):
        text = line.decode("utf-8", errors="replace")
        if not js_trim(text):
            continue
        try:
            value = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            continue
        if not js_truthy(value):
            continue  # pi 1.6.0 skips null, false, 0 and ""
        if type(value) is dict and value.get("type") == "session" and type(value.get("id")) is str:
            return None
        break
    else:
        if len(head) >= window:
            return None  # the header is beyond what was read: assume pi finds it as pitui did
    if head.lstrip(b"\n").startswith(b"\xef\xbb\xbf"):
        why = "the file starts with a UTF-8 byte order mark, which pi does not skip, so it finds no session header"
    else:
        why = "the first line pi can parse is not a session header (pi no longer trims the file before parsing it)"
    return Verdict(OPEN, "Error", f"Session file is not a valid pi session: {os.path.abspath(session.path)}", why)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


# ----------------------------------------------------------------------------------------------
# context


def _context_verdict(session: Session, projection: list[ProjectedEntry] | None) -> Verdict | None:
    """``buildSessionContext`` on the leaf: the path walk, the settings scan, the projection."""
    leaf = session._context_leaf(session.leaf_id)
    if leaf is None:
        return None
    path = session._walk_up(leaf)
    # The walk up stops at a root (no parent, or one not in the file), or where it came round.
    top = path[0].parent_id if path else None
    if top and top in session.by_id and session.in_cycle(leaf):
        return Verdict(
            CONTEXT,
            None,
            None,
            "a parentId cycle on the path to the leaf: pi walks it until it runs out of memory and aborts",
        )
    for entry in path:
        # The line index knows the role of every message that is an object: only the others
        # are read again.
        if entry.type == "message" and entry.role is MISSING and entry.message in (None, MISSING):
            what = "null" if entry.message is None else "undefined"
            return Verdict(
                CONTEXT,
                "TypeError",
                f"Cannot read properties of {what} (reading 'role')",
                f"entry {entry.id} (line {entry.line}) is a message entry without a message",
            )
    if projection is None:
        projection = session.projection()
    for projected in projection:
        edit = projected.edit
        if edit is None or has_replacement(edit):
            continue
        if any(_editable(m) for m in projected.original):
            return Verdict(
                CONTEXT,
                "TypeError",
                "Cannot read properties of undefined (reading 'content')",
                f"the context_edit {edit.id} (line {edit.line}) of entry {projected.entry.id} has no replacement",
            )
    return None


def _editable(message: Any) -> bool:
    role = message.get("role") if type(message) is dict else None
    return type(role) is str and role in EDITABLE_ROLES


# ----------------------------------------------------------------------------------------------
# name


def _name_verdict(session: Session) -> Verdict | None:
    """``getSessionName``: ``name?.trim()`` of the latest ``session_info`` in file order."""
    for entry in reversed(session.entries):
        if entry.type == "session_info":
            name = entry.get("name")
            if name is None or name is MISSING or type(name) is str:
                return None
            return Verdict(
                NAME,
                "TypeError",
                "entry.name?.trim is not a function",
                f"the session name of entry {entry.id} (line {entry.line}) is not a string",
            )
    return None
