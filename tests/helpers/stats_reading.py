"""The session files the preview's counts are checked on, and an independent reading of them: the
standard library's json, line by line."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pitui.demo
from pitui.store.stats import (
    PROMPT_CHARS,
    SessionPreview,
    session_preview,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEMO = sorted(Path(pitui.demo.__file__).resolve().parent.glob("sessions/*/*.jsonl"))
NOT_SESSIONS = {"empty.jsonl", "foreign.jsonl", "header-id-not-string.jsonl", "v4-harness.jsonl"} | {
    "b02-cr-only.jsonl",  # no line ends in a newline: one line, not JSON
    "b09-header-id-null.jsonl",  # a header id that is not a string
    "b09-header-no-id.jsonl",
}
READABLE = DEMO + sorted(p for p in FIXTURES.glob("*.jsonl") if p.name not in NOT_SESSIONS)
FOR_PI = [p for p in READABLE if "cycle" not in p.name]  # pi loops forever on a parentId cycle
V1 = {"v1.jsonl", "v1-index-shift.jsonl", "v1-index-forward.jsonl"}


def ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def preview(path: Path | str) -> SessionPreview:
    return session_preview(str(path), use_cache=False)


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"


# -- an independent reading: the standard library's json, line by line ---------------------------


def plain_entries(path: Path) -> tuple[dict[str, Any], list[Any]]:
    """The header and the entries as pi keeps them (bad lines, null lines and second headers out;
    other JSON values kept), decoded with the standard library."""
    # pi 0.73.1 trimmed the whole file: a BOM or a no-break space before the header goes.
    text = path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff\u00a0")
    header = None
    entries: list[Any] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if header is None:
            header = value
        elif value is not None and not (isinstance(value, dict) and value.get("type") == "session"):
            entries.append(value)
    assert isinstance(header, dict)
    return header, entries


def message_of(entry: Any) -> dict[str, Any] | None:
    if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict):
        return entry["message"]
    return None


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b.get("text") or "" for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def usage_sums(entries: list[Any]) -> tuple[list[float], float, Counter[str]]:
    """Tokens and cost as pi 1.6's /session adds them (every assistant usage, toolResult usages,
    ``usage`` entries, compaction and branch summary usages), figures that are not numbers left
    out; and the assistant messages by model."""
    tokens = [0.0, 0.0, 0.0, 0.0]
    cost = 0.0
    models: Counter[str] = Counter()
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        message = message_of(entry)
        role = message.get("role") if message is not None else None
        if role == "assistant":
            models[f"{message.get('provider')}/{message.get('model')}"] += 1
        if role in ("assistant", "toolResult"):
            usage = message.get("usage")
        elif entry.get("type") in ("usage", "compaction", "branch_summary"):
            usage = entry.get("usage")
        else:
            continue
        if not isinstance(usage, dict) or not isinstance(usage.get("cost"), dict):
            continue  # pi 1.6 throws on these: pitui shows the rest
        for i, key in enumerate(("input", "output", "cacheRead", "cacheWrite")):
            if finite(usage.get(key)):
                tokens[i] += usage[key]
        total = usage["cost"].get("total")
        if finite(total):
            cost += total
    return tokens, cost, models


def finite(value: Any) -> bool:
    """Whether a figure is a number JavaScript reads as finite (an integer literal too big for
    a double is Infinity to JSON.parse)."""
    if type(value) is int:
        return abs(value) < 2**1024 - 2**970
    return type(value) is float and math.isfinite(value)
