"""The order pi lists sessions in, in one place.

A folder's files are read in ``b.localeCompare(a)`` order of their names (``list``); every
project's are read by mtime, newest first, then by name (``listAll``); the rows are then sorted
by ``modified``, newest first, a stable sort that keeps the reading order among ties (and puts
an invalid ``modified`` last).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TypeVar

from pitui.store.catalog.model import SessionInfo
from pitui.store.js import js_locale_key

T = TypeVar("T")


def sort_names(names: list[str]) -> None:
    """File names (or paths of one folder) in place, as pi's ``list`` reads them:
    ``b.localeCompare(a)``, then by code point among names that compare equal."""
    names.sort(reverse=True)
    names.sort(key=js_locale_key, reverse=True)


def sort_by_file_name(infos: list[SessionInfo]) -> None:
    """:func:`sort_names` on the rows' file names, in place."""
    infos.sort(key=lambda info: os.path.basename(info.path), reverse=True)
    infos.sort(key=lambda info: js_locale_key(os.path.basename(info.path)), reverse=True)


def by_mtime_then_name(
    items: list[T],
    mtime_of: Callable[[T], float],
    path_of: Callable[[T], str] = lambda item: item,  # type: ignore[assignment,return-value]
) -> list[T]:
    """Paths (or rows) in the order pi's ``listAll`` reads them: mtime newest first, then the
    base name by ``b.localeCompare(a)``, then the path (pi: readdir order). An unreadable
    file's mtime counts as -infinity."""
    out = sorted(items, key=path_of, reverse=True)
    out.sort(key=lambda item: js_locale_key(os.path.basename(path_of(item))), reverse=True)
    out.sort(key=mtime_of, reverse=True)
    return out


def modified_key(info: SessionInfo) -> float:
    """The listing's sort key: ``modified``, newest first; NaN last."""
    m = info.modified
    return math.inf if math.isnan(m) else -m
