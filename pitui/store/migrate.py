"""pi's migration of old session files, v1 -> v2 -> v3, done in memory (the file is left as it is).

Mirrors ``migrateToCurrentVersion`` with ``migrateV1ToV2`` and ``migrateV2ToV3`` (reference §3.3):
v1 entries get ids and one chain in file order, a v1 compaction's ``firstKeptEntryIndex`` becomes
``firstKeptEntryId``, v2's ``hookMessage`` role becomes ``custom``.
"""

from __future__ import annotations

import math
from typing import Any

from pitui.store.ids import stable_id
from pitui.store.js import MISSING, js_string, js_string_to_number
from pitui.store.model import Entry

CURRENT_VERSION = 3


def version_number(version: Any) -> float:
    """``header.version ?? 1`` compared as JavaScript compares it with a number."""
    if version is MISSING or version is None:
        return 1
    if isinstance(version, bool):
        return float(version)
    if isinstance(version, int | float):
        return float(version)
    if isinstance(version, str):
        return js_string_to_number(version)
    if isinstance(version, list):  # [3] < 3 compares "3" with 3
        return js_string_to_number(js_string(version))
    return math.nan


def migrate(header: dict[str, Any], entries: list[Entry], parsed_order: list[dict[str, Any]], version: Any) -> None:
    """``migrateToCurrentVersion``: v1 -> v2 -> v3 in memory (reference §3.3); the file is left as
    it is. v1 ids are :func:`~pitui.store.ids.stable_id` (pi draws random ones)."""
    number = version_number(version)
    if math.isnan(number):
        return  # JavaScript: NaN >= 3 and NaN < 2 are both false, so nothing happens.
    if number < 2:
        header["version"] = 2
        ids: set[str] = set()
        previous: str | None = None
        seed = str(header.get("id"))
        for position, entry in enumerate(entries):
            data = entry.data
            new_id = stable_id(seed, position, ids)
            data["id"] = new_id
            data["parentId"] = previous
            entry.id, entry.parent_id = new_id, previous
            previous = new_id
            if entry.type == "compaction" and "firstKeptEntryIndex" in data:
                _map_first_kept_index(data, parsed_order)
    if number < 3:
        header["version"] = 3
        for entry in entries:
            if entry.type == "message":
                message = entry.data.get("message")
                if isinstance(message, dict) and message.get("role") == "hookMessage":
                    message["role"] = "custom"
                    entry.role = "custom"


def _map_first_kept_index(compaction: dict[str, Any], parsed_order: list[dict[str, Any]]) -> None:
    """A v1 compaction's ``firstKeptEntryIndex`` counts every parsed line, the header at 0 (a
    skipped bad line shifts it, as in pi); its target must already have its new id."""
    index = compaction["firstKeptEntryIndex"]
    if isinstance(index, int | float) and not isinstance(index, bool):
        whole = isinstance(index, int) or index.is_integer()
        target = parsed_order[int(index)] if whole and 0 <= index < len(parsed_order) else None
        if target is not None and target.get("type") != "session":
            if "id" in target:
                compaction["firstKeptEntryId"] = target["id"]
            else:
                compaction.pop("firstKeptEntryId", None)
        del compaction["firstKeptEntryIndex"]
