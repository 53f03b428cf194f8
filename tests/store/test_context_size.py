"""The context size rule (pitui.store.context_size) on figures worked out by hand from pi 1.6.0's
``core/compaction/compaction.ts`` and ``footer.ts``; tests/conformance/test_context_size_vs_pi.py
compares it with pi itself."""

from __future__ import annotations

import json
import math
from pathlib import Path

from pitui.store.context_size import (
    calculate_context_tokens,
    context_tokens,
    estimate_context_tokens,
    estimate_tokens,
    format_tokens,
)
from pitui.store.reader import Session

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _session(tmp_path: Path, lines: list[dict]) -> Session:
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T00:00:00Z", "cwd": "/p"}
    path.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines]))
    return Session.load(str(path))


def _msg(id_: str, parent: str | None, message: dict) -> dict:
    return {"type": "message", "id": id_, "parentId": parent, "timestamp": "2025-01-01T00:00:01Z", "message": message}


USAGE = {"input": 100, "output": 20, "cacheRead": 5, "cacheWrite": 0, "totalTokens": 0}


def test_usage_total_or_its_parts():
    assert calculate_context_tokens({**USAGE, "totalTokens": 900}) == 900
    assert calculate_context_tokens(USAGE) == 125
    assert math.isnan(calculate_context_tokens({"input": 1}))


def test_characters_over_four_rounded_up():
    assert estimate_tokens({"role": "user", "content": "abcde"}) == 2
    assert estimate_tokens({"role": "user", "content": "😀"}) == 1  # two UTF-16 units
    assert estimate_tokens({"role": "user", "content": [{"type": "image"}]}) == 1200
    call = {"type": "toolCall", "name": "ls", "arguments": {"a": 1}}  # 2 + len('{"a":1}') = 9
    assert estimate_tokens({"role": "assistant", "content": [call]}) == 3


def test_usage_of_the_last_reply_plus_what_follows():
    messages = [
        {"role": "user", "content": "x" * 40},
        {"role": "assistant", "content": [], "usage": USAGE, "stopReason": "stop"},
        {"role": "assistant", "content": [], "usage": {**USAGE, "totalTokens": 7}, "stopReason": "aborted"},
        {"role": "user", "content": "y" * 8},
    ]
    estimate = estimate_context_tokens(messages)
    assert (estimate.tokens, estimate.usage_tokens, estimate.last_usage_index) == (125 + 0 + 2, 125, 1)


def test_highlighted_entry_is_the_leaf(tmp_path):
    session = _session(
        tmp_path,
        [
            _msg("u1", None, {"role": "user", "content": "x" * 40, "timestamp": 1}),
            _msg(
                "a1", "u1", {"role": "assistant", "content": [], "usage": USAGE, "stopReason": "stop", "timestamp": 2}
            ),
            _msg("u2", "a1", {"role": "user", "content": "y" * 8, "timestamp": 3}),
        ],
    )
    assert [context_tokens(session, i) for i in ("u1", "a1", "u2")] == [10, 125, 127]


def test_an_edit_after_the_reply_makes_pi_estimate_everything(tmp_path):
    session = _session(
        tmp_path,
        [
            _msg("u1", None, {"role": "user", "content": "x" * 40, "timestamp": 1}),
            _msg(
                "a1", "u1", {"role": "assistant", "content": [], "usage": USAGE, "stopReason": "stop", "timestamp": 2}
            ),
            {
                "type": "context_edit",
                "id": "e1",
                "parentId": "a1",
                "timestamp": "2025-01-01T00:00:03Z",
                "targetId": "u1",
                "replacement": None,
            },
        ],
    )
    assert context_tokens(session, "e1") == 0  # u1 omitted, the reply has no content


def test_unknown_after_a_compaction_until_a_reply():
    session = Session.load(str(FIXTURES / "ctx-compaction-system.jsonl"))
    sizes = {e.id: context_tokens(session, e.id) for e in session.entries}
    assert sizes["e0000006"] is None and sizes["e0000009"] == 2213


def test_footer_format():
    assert [format_tokens(n) for n in (999, 1250, 45_500, 1_250_000, 12_400_000)] == [
        "999",
        "1.3k",
        "46k",
        "1.3M",
        "12M",
    ]
