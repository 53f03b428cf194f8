"""The picker's session preview (pitui.store.stats): counts checked against a plain json parse
(tests/helpers/stats_reading.py), bad lines, errors, the cache, and files bigger than a read
block. The counts against pi itself are in tests/conformance/test_stats_vs_pi.py."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from helpers.stats_reading import (
    DEMO,
    FIXTURES,
    NOT_SESSIONS,
    READABLE,
    ids,
    message_of,
    one_line,
    plain_entries,
    preview,
    usage_sums,
)

from devkit import builder as kit
from pitui.store.js import iso_ms
from pitui.store.jsonl import BLOCK
from pitui.store.reader import Session
from pitui.store.stats import (
    PROMPT_CHARS,
    PreviewCancelled,
    PreviewError,
    clear_preview_cache,
    session_facts,
    session_preview,
)

# -- against a plain reading ------------------------------------------------------------------


@pytest.mark.parametrize("path", READABLE, ids=ids(READABLE))
def test_tokens_cost_models_and_roles(path):
    header, entries = plain_entries(path)
    tokens, cost, models = usage_sums(entries)
    got = preview(path)
    assert [got.tokens.input, got.tokens.output, got.tokens.cache_read, got.tokens.cache_write] == tokens
    assert got.tokens.total == sum(tokens)
    assert got.cost == pytest.approx(cost, rel=1e-12, abs=1e-12)
    assert {m.name: m.messages for m in got.models} == dict(models)
    assert [m.messages for m in got.models] == sorted((m.messages for m in got.models), reverse=True)
    roles: Counter[str] = Counter()
    for entry in entries:
        if isinstance(entry, dict) and entry.get("type") == "message":
            message = message_of(entry)
            role = message.get("role") if message else None
            if role == "hookMessage" and header.get("version", 1) < 3:
                role = "custom"
            roles[role if isinstance(role, str) else "unknown"] += 1
    assert got.roles == dict(roles)
    assert got.size == path.stat().st_size


@pytest.mark.parametrize("path", READABLE, ids=ids(READABLE))
def test_a_loaded_session_has_the_previews_facts(path):
    """The session view counts its facts from the session it read; they are the preview's,
    which reads the file again (odd ids, duplicates, cycles, old versions and bad lines included)."""
    got = preview(path)
    facts = session_facts(Session.load(str(path)))
    assert (facts.leaves, facts.tokens, facts.cost, facts.size) == (
        got.leaves,
        got.tokens.total,
        got.cost,
        got.size,
    )


def test_demo_sessions_add_up():
    """The demo's branched session: three ends, two branch points, two labels (newest first),
    and a fork that names its parent."""
    weather = [p for p in DEMO if "weatherapp" in str(p)]
    got = preview(weather[0])
    assert (got.leaves, got.branch_points) == (3, 2)
    assert [label.text for label in got.labels] == ["regression test", "fix"]
    assert got.models[0].name == "anthropic/claude-opus-4-5"
    assert got.cost > 0 and got.tokens.total > 0
    fork = preview(weather[1])
    assert fork.parent_session is not None and fork.parent_session.endswith(weather[0].name)
    assert fork.name == "Cache: clear command and --no-cache"


def test_labels_newest_first_and_cleared_ones_gone():
    got = preview(FIXTURES / "labels.jsonl")
    assert [(label.target_id, label.text) for label in got.labels] == [
        ("e0000011", "meta"),
        ("e0000004", "answer again"),
        ("e0000003", "beginning"),
    ]
    assert iso_ms(got.labels[0].time) == "2026-01-05T10:01:33.000Z"


def test_a_label_on_a_missing_entry_is_not_shown():
    assert preview(FIXTURES / "label-missing-target.jsonl").labels == ()


@pytest.mark.parametrize("path", READABLE, ids=ids(READABLE))
def test_skipped_lines_are_the_lines_that_are_not_entries(path):
    session = Session.load(str(path))
    got = preview(path)
    assert got.skipped_lines == len(session.unparsed)
    assert got.entries == len(session.entries)


@pytest.mark.parametrize(
    ("name", "lines", "reason"),
    [
        ("bad-lines.jsonl", [4, 7, 8], "NUL bytes"),
        ("torn-last-line.jsonl", [6], "incomplete last line"),
        ("torn-line-joined.jsonl", [6], "not valid JSON"),
        ("garbage-first-line.jsonl", [1], "not valid JSON"),
        ("duplicate-header.jsonl", [5], "a second session header"),
        ("null-line.jsonl", [6], "a null line"),
        ("whitespace-lines.jsonl", [12], "not valid JSON"),
    ],
)
def test_bad_lines_are_counted_with_where_and_why(name, lines, reason):
    got = preview(FIXTURES / name)
    assert got.skipped_lines == len(lines)
    assert [p.line for p in got.problems] == lines
    assert any(reason in p.reason for p in got.problems)


@pytest.mark.parametrize("name", ["cycle-2.jsonl", "cycle-3.jsonl", "cycle-self-leaf.jsonl"])
def test_a_parent_cycle_ends_the_walk_to_the_last_prompt(name):
    got = preview(FIXTURES / name)
    assert got.entries == len(Session.load(str(FIXTURES / name)).entries)
    assert got.last_prompt is not None


# -- prompts --------------------------------------------------------------------------------------


def test_prompts_are_one_line_cut_and_the_last_follows_the_leaf(tmp_path):
    long_text = "first\nline\t with  spaces " + "x" * 2000
    path = kit.write(
        tmp_path / "s.jsonl",
        kit.header(),
        kit.msg("a0000001", None, "user", [{"type": "image", "data": "", "mimeType": "image/png"}], n=1),
        kit.msg("a0000002", "a0000001", "user", long_text, n=2),
        kit.msg("a0000003", "a0000002", "assistant", "ok", n=3),
        kit.msg("a0000004", "a0000003", "user", "abandoned branch", n=4),
        kit.msg("a0000005", "a0000003", "user", "kept\r\nbranch", n=5),
        kit.msg("a0000006", "a0000005", "assistant", "done", n=6),
        kit.entry("label", "a0000007", "a0000006", n=7, targetId="a0000004", label="old"),
    )
    got = preview(path)
    assert got.first_prompt == one_line(long_text)
    assert len(got.first_prompt) == PROMPT_CHARS and got.first_prompt.startswith("first line with spaces x")
    assert got.last_prompt == "kept branch"
    assert got.leaf_id == "a0000007"
    assert (got.leaves, got.branch_points) == (2, 1)


def test_no_prompts(tmp_path):
    path = kit.write(tmp_path / "s.jsonl", kit.header(), kit.msg("a0000001", None, "assistant", "hello"))
    got = preview(path)
    assert (got.first_prompt, got.last_prompt) == (None, None)


def test_odd_usage_values_count_as_nothing(tmp_path):
    """Strings, lists and missing figures add nothing; ``true`` adds 1, as JavaScript's + (and so
    pi's /session) adds it; a message without usage is left out (pi's /session throws on it)."""
    odd = {"input": "12", "output": True, "cacheRead": None, "cacheWrite": [3], "cost": {"total": "0.5"}}
    good = {
        "input": 10,
        "output": 5,
        "cacheRead": 100,
        "cacheWrite": 1,
        "totalTokens": 116,
        "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0.01, "cacheWrite": 0.001, "total": 0.311},
    }
    path = kit.write(
        tmp_path / "s.jsonl",
        kit.header(),
        kit.msg("a0000001", None, "assistant", "a", usage=odd),
        kit.msg("a0000002", "a0000001", "assistant", "b", usage=good),
        kit.msg("a0000003", "a0000002", "assistant", "c", usage=None, provider=None, model=7),
        {"type": "message", "id": "a0000004", "parentId": "a0000003", "timestamp": kit.ts(4), "message": None},
    )
    got = preview(path)
    assert (got.tokens.input, got.tokens.output, got.tokens.cache_read, got.tokens.cache_write) == (10, 6, 100, 1)
    assert got.tokens.total == 117
    assert got.totals.error == "Cannot read properties of null (reading 'input')"
    assert got.cost == pytest.approx(0.311)
    assert {m.name: m.messages for m in got.models} == {"anthropic/claude-x": 2, "7": 1}
    assert got.roles == {"assistant": 3, "unknown": 1}


# -- files bigger than a block ------------------------------------------------------------------


def test_lines_longer_than_a_block_and_prompts_read_back_across_blocks(tmp_path):
    big = "y" * (BLOCK * 2 + 123)
    objects: list[Any] = [kit.header()]
    parent = None
    for i in range(1, 400):
        eid = f"b{i:07d}"
        role = ("user", "assistant", "toolResult")[i % 3]
        text = big if i == 200 else f"message {i} " + "z" * 5000
        objects.append(kit.msg(eid, parent, role, text, n=i))
        parent = eid
    path = kit.write(tmp_path / "big.jsonl", *objects)
    assert path.stat().st_size > 3 * BLOCK
    got = preview(path)
    assert got.entries == 399
    assert got.roles == {"user": 133, "assistant": 133, "toolResult": 133}
    assert got.last_prompt == one_line(f"message 399 {'z' * 5000}")
    assert got.skipped_lines == 0
    assert got.leaf_id == "b0000399"


def test_cancelled_between_blocks(tmp_path):
    path = kit.write(
        tmp_path / "s.jsonl", kit.header(), *(kit.msg(f"c{i:07d}", None, "user", "w" * 4000, n=i) for i in range(600))
    )
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 1

    with pytest.raises(PreviewCancelled):
        session_preview(str(path), cancelled=cancelled)
    assert preview(path).entries == 600


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("empty.jsonl", "empty"),
        ("foreign.jsonl", "Not a pi session"),
        ("header-id-not-string.jsonl", "Not a pi session"),
        ("v4-harness.jsonl", "Not a pi session"),
    ],
)
def test_not_a_session(name, message):
    with pytest.raises(PreviewError, match=message) as caught:
        session_preview(str(FIXTURES / name))
    assert caught.value.path == str(FIXTURES / name)


def test_vanished_file(tmp_path):
    path = kit.linear(tmp_path / "s.jsonl")
    assert session_preview(str(path)).entries == 4
    path.unlink()
    for use_cache in (True, False):
        with pytest.raises(PreviewError, match="no longer exists"):
            session_preview(str(path), use_cache=use_cache)


def test_folder_fifo_and_whitespace(tmp_path):
    with pytest.raises(PreviewError, match="Not a session file"):
        session_preview(str(tmp_path))
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(PreviewError, match="not a regular file"):  # and does not block on the open
        session_preview(str(fifo))
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b" \n\t\n")
    with pytest.raises(PreviewError, match="empty"):
        session_preview(str(blank))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    path = kit.linear(tmp_path / "s.jsonl")
    path.chmod(0)
    with pytest.raises(PreviewError, match="permission denied"):
        session_preview(str(path))


def test_reading_never_writes(tmp_path):
    copies = []
    for path in READABLE + [FIXTURES / name for name in sorted(NOT_SESSIONS)]:
        copy = tmp_path / f"{len(copies)}-{path.name}"
        shutil.copy2(path, copy)
        copies.append((copy, copy.read_bytes(), copy.stat().st_mtime_ns))
    for copy, _, _ in copies:
        with contextlib.suppress(PreviewError):
            session_preview(str(copy), use_cache=False)
    assert sorted(os.listdir(tmp_path)) == sorted(c.name for c, _, _ in copies)
    for copy, data, mtime in copies:
        assert copy.read_bytes() == data
        assert copy.stat().st_mtime_ns == mtime


# -- cache ----------------------------------------------------------------------------------------


def test_cache_is_keyed_by_size_and_mtime(tmp_path):
    clear_preview_cache()
    path = kit.linear(tmp_path / "s.jsonl")
    first = session_preview(str(path))
    assert session_preview(str(path)) is first
    assert session_preview(str(path), use_cache=False) is not first
    with path.open("ab") as handle:  # pi appends
        handle.write(kit.lines(kit.msg("a9999999", "a0000003", "user", "more", n=9)))
    grown = session_preview(str(path))
    assert (grown.entries, grown.last_prompt) == (5, "more")
    clear_preview_cache()
    assert session_preview(str(path)) is not grown


def test_the_store_does_not_import_textual():
    code = "import sys, pitui.store.stats; sys.exit('textual' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
