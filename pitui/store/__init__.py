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
    from pitui.store.js import MISSING
    from pitui.store.model import Entry, LineProblem, NotASessionError, SessionContext, Tree
    from pitui.store.reader import Session
    from pitui.store.write.manager import EntryNotFoundError, SessionManager

# Imported on first use, not here: every ``import pitui.store.<module>`` runs this file first, and
# importing the reader and the manager here would add about 30 ms to every command's start
# (``pitui ls`` and ``--help`` included, which need neither: measured with python -c, the best of
# 12 runs of importing pitui.cli.main: 45 ms lazy, 77 ms with plain imports).
_EXPORTS = {
    "MISSING": "js",
    "EntryNotFoundError": "write.manager",
    "SessionManager": "write.manager",
    "Entry": "model",
    "LineProblem": "model",
    "NotASessionError": "model",
    "SessionContext": "model",
    "Tree": "model",
    "Session": "reader",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"pitui.store.{_EXPORTS[name]}"), name)


__all__ = [
    "MISSING",
    "Entry",
    "EntryNotFoundError",
    "LineProblem",
    "NotASessionError",
    "Session",
    "SessionContext",
    "SessionManager",
    "Tree",
]
