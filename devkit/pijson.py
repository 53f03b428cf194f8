"""JSON text exactly as pi writes it (``JSON.stringify``), for the data generators.

The rules live in pitui's store (``pitui.store.jsonl.dumps``: JavaScript's number spelling,
lone surrogates as ``\\udXXX``, keys in insertion order); this module gives the generators the
text and line forms they write.
"""

from __future__ import annotations

from typing import Any

from pitui.store.jsonl import dumps as _dumps


def _lists(obj: Any) -> Any:
    """Tuples as arrays, so their numbers are spelt like every other."""
    if isinstance(obj, tuple | list):
        return [_lists(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _lists(v) for k, v in obj.items()}
    return obj


def dumps(obj: Any) -> str:
    """``JSON.stringify(obj)``: compact, non-ASCII kept, keys in insertion order."""
    return _dumps(_lists(obj)).decode()


def line(obj: Any) -> bytes:
    """One JSONL line as pi appends it: the JSON text, UTF-8, and a newline."""
    return _dumps(_lists(obj)) + b"\n"
