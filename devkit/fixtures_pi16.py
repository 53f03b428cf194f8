# ruff: noqa: E501  (fixture text is data)
"""The fixtures of pi 1.6.0's bugs (``reference/pi-1.6.md`` §6, B1-B15), written by
``python -m devkit.make_fixtures`` next to the others, each named after its case (``b02-…``).

Each row says what pi 1.6.0 does with the file and what pitui does instead. Cases that are shown
by a fixture made earlier under another name are listed in :data:`EXISTING` rather than made
twice; cases no file can show (what a UI does, how a rewrite is written) are in :data:`NO_FILE`.
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    MISSING,
    assistant_entry,
    chat,
    fixture_header,
    iso_at,
    label,
    message,
    ms_at,
    pi_lines,
    session_info,
    start,
    user_entry,
)
from devkit.builder import entry_id as e

# (file, bytes, case, what the file holds, pi 1.6.0, pitui)
PI16_FIXTURES: list[tuple[str, bytes, str, str, str, str]] = []


def bug(name: str, case: str, holds: str, pi16: str, pitui: str) -> Any:
    def deco(fn: Any) -> Any:
        PI16_FIXTURES.append((name, fn(), case, holds, pi16, pitui))
        return fn

    return deco


def _header(**changes: Any) -> dict[str, Any]:
    """The fixtures' header with keys replaced, or taken out where the value is MISSING."""
    head = fixture_header()
    for key, value in changes.items():
        if value is MISSING:
            del head[key]
        else:
            head[key] = value
    return head


def _system(i: int, parent: str, t: float) -> dict[str, Any]:
    """A system message as pi 1.6 writes it before the first prompt (sections and tools cut short)."""
    body = {
        "role": "system",
        "content": "",
        "sections": {
            "preamble": "You are a coding assistant running inside pi.",
            "cwd": "Current working directory: /home/user/projects/fixture",
        },
        "timestamp": ms_at(t),
        "toolsAdded": [
            {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            }
        ],
    }
    return message(e(i), parent, t, body)


def _usage(i: int, parent: str, t: float, note: str | None = None) -> dict[str, Any]:
    usage = {
        "input": 10,
        "output": 0,
        "cacheRead": 1200,
        "cacheWrite": 0,
        "totalTokens": 1210,
        "cost": {"input": 0.00003, "output": 0, "cacheRead": 0.00036, "cacheWrite": 0, "total": 0.00039},
    }
    out = {
        "type": "usage",
        "id": e(i),
        "parentId": parent,
        "timestamp": iso_at(t),
        "kind": "cache_warm",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": usage,
    }
    return {**out, "note": note} if note else out


def _edit(i: int, parent: str, t: float, target: str, replacement: Any = ..., /) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "context_edit",
        "id": e(i),
        "parentId": parent,
        "timestamp": iso_at(t),
        "targetId": target,
    }
    if replacement is not ...:
        out["replacement"] = replacement
    return out


def _plain(*extra: Any) -> bytes:
    """Header, model and thinking, two exchanges (e0000003..e0000006), then ``extra``."""
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 2), *extra)


@bug(
    "b01-nbsp-start.jsonl",
    "B1",
    "A no-break space (U+00A0) before the header, the way a BOM sits there: whitespace to JavaScript's `trim()`, not to `JSON.parse`.",
    "Not a valid pi session (1.6 no longer trims the file): open throws, listing skips it. pi 0.73.1 loaded it.",
    "Reads it as pi 0.73.1 did (the whole session), as it reads `bom.jsonl`.",
)
def _nbsp_start() -> bytes:
    return "\u00a0".encode() + _plain()


@bug(
    "b02-lone-cr.jsonl",
    "B2",
    "A raw CR (legal JSON whitespace) between two keys of the last user message, and an assistant answer after it.",
    "Opening splits on `\\n` only and loads all 8 entries (6 messages); listing (readline) also splits on the CR, so that line is two broken halves: it lists 5 messages, and the question is not in its searchable text.",
    "One line rule for listing and opening: the CR is whitespace inside a line; both count 6 messages.",
)
def _lone_cr() -> bytes:
    data = _plain(
        user_entry(e(7), e(6), 60, "Question 3, with a CR inside its line"), assistant_entry(e(8), e(7), 65, "Answer 3")
    )
    rows = data.split(b"\n")
    rows[7] = rows[7].replace(b',"parentId"', b',\r"parentId"', 1)
    return b"\n".join(rows)


@bug(
    "b02-cr-only.jsonl",
    "B2",
    "A whole session with old-Mac line ends: every line ends in a lone CR, none in LF.",
    "Listed (readline splits on CR) but cannot be opened: to `loadEntriesFromFile` it is one line, which is not JSON, so the file is not a valid pi session.",
    "Not a session: not opened (no readable line), and not listed either.",
)
def _cr_only() -> bytes:
    return _plain().replace(b"\n", b"\r")


@bug(
    "b03-no-final-newline.jsonl",
    "B3",
    "A complete session whose last entry has no newline after it.",
    "Loads, and open appends `\\n` to the file (the repair write, also when the file is only the source of a fork).",
    "Loads the same session; reading never writes (a later append starts with the newline).",
)
def _no_final_newline() -> bytes:
    return _plain()[:-1]


@bug(
    "b05-edit-no-replacement.jsonl",
    "B5",
    "A `context_edit` on the path without a `replacement` key (not producible by pi's writer).",
    "Building the context throws `TypeError: Cannot read properties of undefined (reading 'content')`: the session cannot be resumed, compacted or rendered.",
    "Reads the session and leaves the edit out of the context (the target's messages stay).",
)
def _edit_no_replacement() -> bytes:
    return _plain(_edit(7, e(6), 60, e(5)))


@bug(
    "b05-edit-content-null.jsonl",
    "B5",
    'A `context_edit` whose `replacement` is `{"content": null}` on the first user message.',
    "Loads; the edited message gets `content: null` (not normalised like stored null content).",
    "Loads the session; its context is compared with pi 1.6.0's projection (`tests/conformance`).",
)
def _edit_content_null() -> bytes:
    return _plain(_edit(7, e(6), 60, e(3), {"content": None}))


@bug(
    "b09-header-id-null.jsonl",
    "B9",
    "A header whose `id` is `null`.",
    "Listed (the listing does not check the id's type) but open says it is not a valid pi session.",
    "As pi: listed, and `pitui inspect` says the first line is not a pi session header.",
)
def _header_id_null() -> bytes:
    return pi_lines(_header(id=None), *start(), *chat(3, e(2), 10, 1))


@bug(
    "b09-header-no-id.jsonl",
    "B9",
    "A header without an `id` key.",
    "Listed with an undefined id but open says it is not a valid pi session.",
    "As pi: listed (no id), and not opened.",
)
def _header_no_id() -> bytes:
    return pi_lines(_header(id=MISSING), *start(), *chat(3, e(2), 10, 1))


@bug(
    "b10-usage-leaf.jsonl",
    "B10",
    "A session whose last entry, so its leaf on load, is a `usage` entry (the cache warmer's record), as pi 1.6 often leaves files.",
    "Loads with the `usage` entry as leaf; `/tree` hides it and selects its parent, and Enter there navigates (and offers to summarise an empty branch) instead of saying it is already there.",
    "Leaf on the `usage` entry, as pi.",
)
def _usage_leaf() -> bytes:
    return _plain(_usage(7, e(6), 60))


@bug(
    "b10-context-edit-leaf.jsonl",
    "B10",
    "A session whose last entry (its leaf) is a `context_edit` replacing the first answer, a bookkeeping row in pi's default `/tree` filter.",
    "Loads with the edit as leaf; `/tree` hides it in the default filter: the same Enter-on-the-start-row navigation as for a `usage` leaf.",
    "Leaf on the edit, as pi.",
)
def _edit_leaf() -> bytes:
    return _plain(_edit(7, e(6), 60, e(4), {"content": "Answer 1, shortened"}))


@bug(
    "b11-no-cwd.jsonl",
    "B11",
    "A header without a `cwd` key.",
    'Listed with cwd `""`; in a custom session folder\'s current scope it never shows (only in All).',
    'Listed with cwd `""` in the All scope, as pi.',
)
def _no_cwd() -> bytes:
    return pi_lines(_header(cwd=MISSING), *start(), *chat(3, e(2), 10, 1))


@bug(
    "b11-empty-cwd.jsonl",
    "B11",
    'A header whose `cwd` is `""`.',
    "As `b11-no-cwd.jsonl`: hidden from a custom folder's current scope.",
    'Listed with cwd `""` in the All scope, as pi.',
)
def _empty_cwd() -> bytes:
    return pi_lines(_header(cwd=""), *start(), *chat(3, e(2), 10, 1))


@bug(
    "b13-name-not-string.jsonl",
    "B13",
    "A `session_info` whose `name` is a number.",
    "`getSessionName` throws (`trim` of a number): open fails and listing skips the file (both versions).",
    "Opens it (a name that is not a string is no name); the listing leaves it out, as pi's, and says why.",
)
def _name_not_string() -> bytes:
    return _plain(session_info(e(7), e(6), 60, 42))


@bug(
    "b13-message-null-off-path.jsonl",
    "B13",
    "A `message` entry whose `message` is `null`, on an abandoned branch (the leaf's path does not reach it).",
    "Opens (the context is built from the path only), but listing skips the whole file (`message.role` of null).",
    "Opens it; the listing leaves it out, as pi's, and says why.",
)
def _message_null_off_path() -> bytes:
    return _plain(
        {"type": "message", "id": e(7), "parentId": e(4), "timestamp": iso_at(70), "message": None},
        user_entry(e(8), e(6), 80, "Question 3"),
    )


@bug(
    "b14-shared-id-1.jsonl",
    "B14",
    "One of two files with the same session id in one folder (what `/import` of an exported session makes).",
    "Both listed; `--session <id>` opens whichever it finds first.",
    "Both listed; an id that names two files is refused as ambiguous.",
)
def _shared_id_1() -> bytes:
    return pi_lines(_header(id="0b140000-1111-4222-8333-444444444444"), *start(), *chat(3, e(2), 10, 1))


@bug(
    "b14-shared-id-2.jsonl",
    "B14",
    "The other file with that session id, with one more exchange.",
    "As `b14-shared-id-1.jsonl`.",
    "As `b14-shared-id-1.jsonl`.",
)
def _shared_id_2() -> bytes:
    return pi_lines(_header(id="0b140000-1111-4222-8333-444444444444"), *start(), *chat(3, e(2), 10, 2))


@bug(
    "b15-system-messages.jsonl",
    "B15",
    "A fresh pi 1.6 session: model, thinking level, the system message, then one exchange, then a label.",
    "`messageCount` 3: the system message counts as a message.",
    "`messageCount` 3 as pi (kept for parity).",
)
def _system_messages() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        _system(3, e(2), 9),
        user_entry(e(4), e(3), 10, "Question 1"),
        assistant_entry(e(5), e(4), 15, "Answer 1"),
        label(e(6), e(5), 20, e(4), "first"),
    )


# Cases a fixture of another name already shows: (files, case, what they hold, pi 1.6.0, pitui).
EXISTING: list[tuple[str, str, str, str, str]] = [
    (
        "`bom.jsonl`",
        "B1",
        "A UTF-8 BOM before the header.",
        "Not a valid pi session: open throws, listing skips it (a regression from 0.73.1).",
        "Reads it, as pi 0.73.1 did.",
    ),
    (
        "`torn-last-line.jsonl`, `v1.jsonl`, `v2-hook-message.jsonl`",
        "B3",
        "A torn last line without a newline; v1 and v2 files.",
        "Open appends a newline to the first and migrates and rewrites the others (v1 with new random ids).",
        "Never writes on read; migrates in memory.",
    ),
    (
        "`cycle-2.jsonl`, `cycle-3.jsonl`, `cycle-self-leaf.jsonl`",
        "B4",
        "`parentId` cycles through the leaf.",
        "No cycle guard: out-of-memory abort after ~17 s and ~2.5 GB. Never given to pi.",
        "Reads them and breaks the cycle.",
    ),
    (
        "`null-content.jsonl`",
        "B6",
        "Messages with `content: null`.",
        "`/fork`'s list and `/tree` Enter on the user message throw (`contentText(null)`); the context gets `content: []`.",
        "Shows them as empty messages.",
    ),
    (
        "`v1.jsonl`",
        "B7",
        "A v1 file as the source of a fork.",
        "`forkFrom` writes a `version: 3` header over id-less entries.",
        "Migrates before it forks.",
    ),
    (
        "`header-id-not-string.jsonl`",
        "B9",
        "A numeric header id.",
        "Listed, but open says not a valid pi session.",
        "As pi: listed, not opened.",
    ),
    (
        "`message-null.jsonl`",
        "B13",
        "`message: null` on the path.",
        "Building the context throws (both versions).",
        "Reads the rest and shows the entry as unreadable.",
    ),
]

# Cases no session file shows: (case, why).
NO_FILE: list[tuple[str, str]] = [
    (
        "B8",
        "`parentSession` cycles between sessions: the links are absolute paths, so the tests make such files where they run.",
    ),
    ("B12", "Non-atomic rewrites: how pi writes, not what a file holds (the v1/v2 fixtures trigger them)."),
]
