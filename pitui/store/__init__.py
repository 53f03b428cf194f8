"""pitui's session store: pi's session files in, plain data out. Never imports textual.

The main entry points:

- :class:`SessionManager`: pi's SessionManager API (create, open, append, branch, fork, list...).
- :class:`Session`: one file read once, with its tree, path, labels, name and context.
- :mod:`pitui.store.write.actions`: pitui's writes (label, rename, branch, fork, clone, trash).
- :mod:`pitui.store.catalog`: listing every session, with a cache and full-text search.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pitui.store.jsonl import MISSING
    from pitui.store.reader import Entry, NotASessionError, Problem, Session, SessionContext, Tree
    from pitui.store.write.manager import EntryNotFoundError, SessionManager

# Imported on first use, so that a command that only lists sessions does not load the model.
_EXPORTS = {
    "MISSING": "jsonl",
    "EntryNotFoundError": "manager",
    "SessionManager": "manager",
    "Entry": "session",
    "NotASessionError": "session",
    "Problem": "session",
    "Session": "session",
    "SessionContext": "session",
    "Tree": "session",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)


__all__ = [
    "MISSING",
    "Entry",
    "EntryNotFoundError",
    "NotASessionError",
    "Problem",
    "Session",
    "SessionContext",
    "SessionManager",
    "Tree",
]
