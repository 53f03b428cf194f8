"""The fields a listing reads of an entry, decoded without the rest of the line.

msgspec validates the whole line as JSON but makes Python objects only of these fields (a tool
result's text, a thinking block, are checked and skipped), several times faster than orjson's
dict of everything. A line whose fields do not fit these types (a message that is not an
object, a content block that is not one, a text that is not a string), or that msgspec refuses
at all, takes orjson and pitui.store.jsonl's exact rules instead (:mod:`pitui.store.catalog.scan`),
so every line is read as JSON.parse reads it.

Imported by the first scan only: msgspec and the types it builds cost a listing from the cache
about 7 ms of start-up it does not need.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

__all__ = ["UNSET", "Block", "DecodeError", "Said", "User", "decode_entry", "decode_lines"]

UNSET = msgspec.UNSET
DecodeError = msgspec.DecodeError


class Block(msgspec.Struct):
    type: Any = None
    text: str | None = None


class Said(msgspec.Struct):
    """A user or assistant message (``role`` is the tag that picks this type)."""

    content: str | list[Block] | msgspec.UnsetType = msgspec.UNSET
    timestamp: Any = None


class User(Said, tag_field="role", tag="user"):
    pass


class _Assistant(Said, tag_field="role", tag="assistant"):
    pass


# pi's other roles: counted, nothing else read (their content is checked and skipped)
_OTHER_ROLES = tuple(
    msgspec.defstruct(f"_Other{n}", [], tag_field="role", tag=role)
    for n, role in enumerate(("toolResult", "system", "bashExecution", "custom", "branchSummary", "compactionSummary"))
)


_Entry = msgspec.defstruct(
    "_Entry",
    [
        ("type", Any, None),
        ("id", Any, None),
        ("timestamp", Any, None),
        ("message", Union[(User, _Assistant, *_OTHER_ROLES, None)], None),
        ("name", Any, None),
    ],
)

_decoder = msgspec.json.Decoder(_Entry)
decode_entry = _decoder.decode
# whitespace-separated values, not lines: ScanState.feed_lines holds them to the lines
decode_lines = _decoder.decode_lines
