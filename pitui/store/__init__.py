"""pitui's session store: pi's session files in, plain data out. Never imports textual.

The main entry points:

- :class:`SessionManager`: pi's SessionManager API (create, open, append, branch, fork, list...).
- :class:`Session`: one file read once, with its tree, path, labels, name and context.
- :mod:`pitui.store.actions`: pitui's writes (label, rename, branch, fork, clone, trash).
- :mod:`pitui.store.catalog`: listing every session, with a cache and full-text search.
"""

from .jsonl import MISSING
from .manager import EntryNotFoundError, SessionManager
from .session import Entry, NotASessionError, Problem, Session, SessionContext, Tree

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
