"""pi's session listing and ``/resume`` search over a SQLite cache: :class:`Catalog` and its records.

The package's parts: ``model`` (the records), ``scan`` (pi's ``buildSessionInfo`` over bytes),
``codec`` (how values are stored), ``db`` (the SQLite file), ``workers`` (scanning in worker
processes), ``search`` (matching and snippets), ``index`` (the full-text index), ``entry_search``
(the messages that match, across sessions) and ``catalog`` (the :class:`Catalog` facade).
"""

from pitui.store.catalog.catalog import Catalog
from pitui.store.catalog.db import cache_dir_default
from pitui.store.catalog.model import ListingCancelled, ListingProblem, Scope, SearchCancelled, SearchHit, SessionInfo
from pitui.store.catalog.scan import ScanState, build_session_info, scan_file

__all__ = [
    "Catalog",
    "ListingCancelled",
    "ListingProblem",
    "ScanState",
    "Scope",
    "SearchCancelled",
    "SearchHit",
    "SessionInfo",
    "build_session_info",
    "cache_dir_default",
    "scan_file",
]
