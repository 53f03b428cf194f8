# ruff: noqa: E501  (fixture text is data)
"""The fixtures of damaged and odd files: bad and torn lines, parent cycles, duplicate ids and
orphans, BOMs, CRLF, unicode separators and invalid UTF-8, empty and header-only files, foreign
and garbled first lines, duplicate and unusual headers, unknown entry types, null contents,
invalid timestamps.
"""

from __future__ import annotations

from typing import Any

from devkit.builder import (
    FIXTURE_CWD,
    MISSING,
    assistant_entry,
    assistant_msg,
    chat,
    custom,
    fixture_header,
    iso_at,
    label,
    message,
    ms_at,
    pi_lines,
    session_info,
    start,
    tool_result_msg,
    user_entry,
    user_msg,
)
from devkit.builder import entry_id as e
from devkit.fixtures_registry import Fixture, registrar
from devkit.pijson import dumps, line

DAMAGED_FIXTURES: list[Fixture] = []
fixture = registrar(DAMAGED_FIXTURES)


@fixture(
    "bad-lines.jsonl",
    "Bad lines between good ones: plain text, a JSON object cut in the middle, a line of NUL bytes. They are skipped; the entries around them keep their parents.",
    "3 lines skipped; path e0000001..e0000006.",
)
def _bad_lines() -> bytes:
    cut = dumps(user_entry(e(9), e(4), 31, "This entry was never finished"))[:60].encode()
    return pi_lines(
        fixture_header(),
        *start(),
        b"this is not json\n",
        *chat(3, e(2), 10, 1),
        cut + b"\n",
        b"\x00" * 48 + b"\n",
        *chat(5, e(4), 40, 1),
    )


@fixture(
    "torn-last-line.jsonl",
    "The last line is cut in the middle of the JSON and has no newline (a writer died mid-append).",
    "The torn line is skipped; leaf e0000004.",
)
def _torn_last() -> bytes:
    torn = dumps(assistant_entry(e(5), e(4), 40, "A long answer that was being written when the process was killed"))[
        :150
    ]
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1)) + torn.encode()


@fixture(
    "torn-line-joined.jsonl",
    "A torn line followed, on the same physical line, by a complete entry (the writer died without a newline, the next append continued the line), and then an entry whose parent is that complete entry.",
    "pi loses the joined line entirely: e0000005 and e0000006 are gone, e0000007 becomes an orphan root, the path is only e0000007.",
)
def _torn_joined() -> bytes:
    torn = dumps(user_entry(e(5), e(4), 40, "The first attempt at this question"))[:90]
    whole = dumps(user_entry(e(6), e(4), 70, "The question again, after a restart"))
    return (
        pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1))
        + (torn + whole + "\n").encode()
        + pi_lines(assistant_entry(e(7), e(6), 75, "Here is the answer."))
    )


@fixture(
    "self-parent.jsonl",
    "An entry whose `parentId` is its own id (not on the leaf's path).",
    "It is an extra root in the tree (roots e0000001, e0000005); path and context are unaffected.",
)
def _self_parent() -> bytes:
    return pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1), custom(e(5), e(5), 20, "loop"), *chat(6, e(4), 40, 1)
    )


@fixture(
    "cycle-2.jsonl",
    "A 2-cycle in `parentId` (e0000004 ↔ e0000005) containing the leaf.",
    "NOT COMPARABLE: pi 0.73.1 never returns on this file (its path walk has no cycle guard). Never give it to the oracle.",
)
def _cycle2() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Hello"),
        assistant_entry(e(4), e(5), 15, "Hi."),
        user_entry(e(5), e(4), 20, "Loop?"),
    )


@fixture(
    "cycle-3.jsonl",
    "A 3-cycle in `parentId` (e0000004 → e0000006 → e0000005 → e0000004) containing the leaf.",
    "NOT COMPARABLE: pi 0.73.1 never returns on this file. Never give it to the oracle.",
)
def _cycle3() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "Hello"),
        assistant_entry(e(4), e(6), 15, "Hi."),
        user_entry(e(5), e(4), 20, "Again"),
        assistant_entry(e(6), e(5), 25, "And again."),
    )


@fixture(
    "cycle-self-leaf.jsonl",
    "The last entry (the leaf) is its own parent.",
    "NOT COMPARABLE: pi 0.73.1 never returns (the leaf's path walk loops). Never give it to the oracle.",
)
def _cycle_self() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), user_entry(e(5), e(5), 30, "Me again"))


@fixture(
    "duplicate-ids.jsonl",
    "Two entries with the same id (`e0000005`, once as a user message under e0000004 and once as another user message under e0000004 later); a child of each.",
    "pi's index keeps the last one (the path goes through the second: ..., e0000004, e0000005, e0000007); its tree attaches the second node twice: e0000004 → [e0000005, e0000005], and e0000005 → [e0000006, e0000007].",
)
def _dup_ids() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), e(4), 30, "First version of the question"),
        assistant_entry(e(6), e(5), 35, "First answer."),
        user_entry(e(5), e(4), 50, "Second version of the question"),
        assistant_entry(e(7), e(5), 55, "Second answer."),
    )


@fixture(
    "orphan.jsonl",
    "Entries whose parent is not in the file (`0badf00d`).",
    "The orphan is an extra root; the path starts at it (e0000005, e0000006); thinking level `off` (the change is not on the path).",
)
def _orphan() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        user_entry(e(5), "0badf00d", 40, "Where did my parent go?"),
        assistant_entry(e(6), e(5), 45, "It is not in this file."),
    )


@fixture(
    "missing-parentid-key.jsonl",
    "An entry without a `parentId` key at all (not null): it behaves like an orphan.",
    "An extra root; the path starts at it. (pi's entryIds show its parentId as null.)",
)
def _missing_parent_key() -> bytes:
    u = user_entry(e(5), None, 40, "No parentId key here")
    del u["parentId"]
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), u, assistant_entry(e(6), e(5), 45, "Noted."))


@fixture(
    "bom.jsonl",
    "A UTF-8 byte order mark before the header.",
    "Loads normally (JavaScript's trim() removes the BOM).",
)
def _bom() -> bytes:
    return b"\xef\xbb\xbf" + pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1))


@fixture(
    "crlf.jsonl",
    "CRLF line endings throughout.",
    "Loads normally (`\\r` before `\\n` is JSON whitespace).",
)
def _crlf() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 2)).replace(b"\n", b"\r\n")


@fixture(
    "unicode-separators.jsonl",
    "U+2028, U+2029 and U+0085 raw inside JSON strings (not line breaks for JSONL), emoji incl. ZWJ sequences, combining marks and right-to-left text, in message text and in the session name.",
    "Loads normally: 1 line per entry; name `Notes 👩‍💻 \\u2028 line`.",
)
def _unicode() -> bytes:
    text = "Line one\u2028line two\u2029paragraph\u0085next — emoji 😀 👩‍💻 🇩🇪, é vs e\u0301, עברית"
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, text),
        assistant_entry(e(4), e(3), 15, "Got it: 👍\u2028(with a separator)"),
        session_info(e(5), e(4), 20, "Notes 👩‍💻 \u2028 line"),
    )


@fixture(
    "lone-surrogate-escape.jsonl",
    "JSON `\\ud83d` and `\\ude00` escapes that are not pairs (valid JSON; JavaScript accepts them, orjson rejects them), and a proper pair.",
    "Loads normally; the message text and the name keep the lone surrogates.",
)
def _lone_surrogate() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        b'{"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"'
        + iso_at(10).encode()
        + b'","message":{"role":"user","content":"broken emoji: \\ud83d and \\ude00, whole: \\ud83d\\ude00","timestamp":'
        + str(ms_at(10)).encode()
        + b"}}\n",
        assistant_entry(e(4), e(3), 15, "I see replacement characters."),
        b'{"type":"session_info","id":"e0000005","parentId":"e0000004","timestamp":"'
        + iso_at(20).encode()
        + b'","name":"half \\ud83d"}\n',
    )


@fixture(
    "invalid-utf8.jsonl",
    "Bytes that are not UTF-8 inside JSON strings (in a message and in the session name): a lone 0xFF, an encoded surrogate ED A0 80, a cut 3-byte sequence E2 82, a cut 4-byte sequence F0 9F 98.",
    "Each bad sequence becomes U+FFFD (ED A0 80 → three of them); the lines still parse. Name `caf\\ufffd \\ufffd\\ufffd\\ufffd`.",
)
def _invalid_utf8() -> bytes:
    msg = (
        b'{"type":"message","id":"e0000003","parentId":"e0000002","timestamp":"'
        + iso_at(10).encode()
        + b'","message":{"role":"user","content":"bad: \xff | \xed\xa0\x80 | \xe2\x82 | \xf0\x9f\x98 | ok \xc3\xa9","timestamp":'
        + str(ms_at(10)).encode()
        + b"}}\n"
    )
    name = (
        b'{"type":"session_info","id":"e0000005","parentId":"e0000004","timestamp":"'
        + iso_at(20).encode()
        + b'","name":"caf\xe9 \xed\xa0\x80"}\n'
    )
    return pi_lines(
        fixture_header(), *start(), msg, assistant_entry(e(4), e(3), 15, "Some bytes were not UTF-8."), name
    )


@fixture(
    "empty.jsonl",
    "A 0-byte file.",
    "Not a session: pi 0.73.1 writes a fresh header (new id, its own cwd) into it when opened.",
)
def _empty() -> bytes:
    return b""


@fixture("header-only.jsonl", "Only the header line.", "Leaf null, empty tree and context.")
def _header_only() -> bytes:
    return pi_lines(fixture_header())


@fixture(
    "whitespace-lines.jsonl",
    "Empty lines, lines of spaces/tabs/`\\r`/NBSP/U+3000 (skipped), an entry indented with spaces and a tab (parses), and a label entry preceded by a NBSP, which JSON does not allow as whitespace.",
    "The indented entry loads; the NBSP-prefixed label does not, so `labels` is {}.",
)
def _whitespace() -> bytes:
    return pi_lines(
        fixture_header(),
        b"\n",
        *start(),
        b"   \n",
        b"\t\t\n",
        b"\r\n",
        b"  \t" + line(user_entry(e(3), e(2), 10, "Indented line")),
        "\u00a0\n".encode(),
        "\u3000\n".encode(),
        assistant_entry(e(4), e(3), 15, "Fine."),
        "\u00a0".encode() + line(label(e(5), e(4), 20, e(3), "nbsp")),
        b"\n\n",
    )


@fixture(
    "foreign.jsonl",
    "Valid JSON lines that are not a pi session (a chat fine-tuning file): the first object is not a `session` header.",
    "Not a session: pi 0.73.1 treats it as corrupt and overwrites it with a fresh header when opened.",
)
def _foreign() -> bytes:
    return pi_lines(
        {
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "2+2?"},
                {"role": "assistant", "content": "4"},
            ]
        },
        {"messages": [{"role": "user", "content": "Capital of France?"}, {"role": "assistant", "content": "Paris"}]},
    )


@fixture(
    "garbage-first-line.jsonl",
    "A garbage first line followed by a valid header: only the first *parsed* object must be a header.",
    "Loads normally (the garbage line is skipped before the check).",
)
def _garbage_first() -> bytes:
    return b"\x1b[31mcolour codes from a terminal paste\x1b[0m\n" + pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1)
    )


@fixture(
    "header-id-not-string.jsonl",
    "A header whose `id` is a number.",
    'Not a session (pi requires `typeof id === "string"`); pi 0.73.1 would overwrite it.',
)
def _header_id_number() -> bytes:
    h = fixture_header()
    h["id"] = 12345
    return pi_lines(h, *start(), *chat(3, e(2), 10, 1))


@fixture(
    "v4-harness.jsonl",
    'A file in the v4 harness format (`{"kind":"header","version":4}`, `seq` on every line, a persisted leaf).',
    "Not a session for pi's v3 SessionManager; pi 0.73.1 would overwrite it.",
)
def _v4() -> bytes:
    return pi_lines(
        {
            "kind": "header",
            "version": 4,
            "id": "019b8a3c-0e51-7d22-9a61-3f0e2b7c4d10",
            "createdAt": iso_at(0),
            "cwd": FIXTURE_CWD,
        },
        {
            "kind": "entry",
            "seq": 1,
            "entry": {
                "type": "message",
                "id": "a1b2c3d4",
                "parentId": None,
                "timestamp": iso_at(10),
                "message": user_msg("Hello", 10),
            },
        },
        {
            "kind": "entry",
            "seq": 2,
            "entry": {
                "type": "message",
                "id": "b2c3d4e5",
                "parentId": "a1b2c3d4",
                "timestamp": iso_at(15),
                "message": assistant_msg("Hi.", 13),
            },
        },
        {
            "kind": "entry",
            "seq": 3,
            "entry": {
                "type": "leaf",
                "id": "c3d4e5f6",
                "parentId": "b2c3d4e5",
                "timestamp": iso_at(16),
                "targetId": "b2c3d4e5",
            },
        },
    )


@fixture(
    "duplicate-header.jsonl",
    "pi's old duplicate-header bug: the header and the first entries were written, then written again (same ids) together with the first assistant message.",
    "The second header is skipped. pi's tree lists the duplicated nodes twice: roots [e0000001, e0000001], children e0000001 → [e0000002, e0000002], e0000002 → [e0000003, e0000003]; entryIds has 9 rows; the path is e0000001..e0000006.",
)
def _dup_header() -> bytes:
    first = [fixture_header(), *start(), user_entry(e(3), e(2), 10, "Hello")]
    return pi_lines(*first, *first, assistant_entry(e(4), e(3), 15, "Hi."), *chat(5, e(4), 40, 1))


@fixture(
    "unknown-types.jsonl",
    "Entry types pi does not know (`active_tools_change`, `system_prompt`, `leaf`) on the path, and messages with unknown roles (`developer`, `note`).",
    "Unknown types are in the tree and path but add nothing to the context; unknown roles are passed through into the context.",
)
def _unknown() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        {
            "type": "active_tools_change",
            "id": e(3),
            "parentId": e(2),
            "timestamp": iso_at(5),
            "tools": ["read", "bash"],
        },
        {
            "type": "system_prompt",
            "id": e(4),
            "parentId": e(3),
            "timestamp": iso_at(6),
            "text": "You are a helpful assistant.",
        },
        user_entry(e(5), e(4), 10, "Hello"),
        message(e(6), e(5), 11, {"role": "developer", "content": "Be brief.", "timestamp": ms_at(11)}),
        assistant_entry(e(7), e(6), 15, "Hi."),
        message(e(8), e(7), 16, {"role": "note", "text": "no content key", "timestamp": ms_at(16)}),
        {"type": "leaf", "id": e(9), "parentId": e(8), "timestamp": iso_at(17), "targetId": e(7)},
    )


@fixture(
    "null-content.jsonl",
    "Messages whose `content` is null (user, assistant, toolResult).",
    "Loads; the context keeps the three messages (with no text or blocks).",
)
def _null_content() -> bytes:
    u = user_entry(e(3), e(2), 10, "x")
    u["message"]["content"] = None
    a = assistant_entry(e(4), e(3), 15, None, stop="toolUse", tool=("toolu_01Nul", "bash", {"command": "true"}))
    a["message"]["content"] = None
    r = message(e(5), e(4), 16, tool_result_msg("toolu_01Nul", "bash", "", 16))
    r["message"]["content"] = None
    return pi_lines(fixture_header(), *start(), u, a, r, assistant_entry(e(6), e(5), 20, "Done."))


@fixture(
    "message-null.jsonl",
    "A `message` entry whose `message` is null, on the path.",
    "pi 0.73.1 throws `TypeError: Cannot read properties of null (reading 'role')` while building the context: not loadable.",
)
def _message_null() -> bytes:
    return pi_lines(
        fixture_header(), *start(), *chat(3, e(2), 10, 1), message(e(5), e(4), 30, None), *chat(6, e(5), 40, 1)
    )


@fixture(
    "non-object-lines.jsonl",
    "Lines that are valid JSON but not objects: a number, a string, an array, `true` (between good entries).",
    "pi keeps them as entries: entryIds has 10 rows (null id, type and parent for the 4 odd ones) and the tree has roots [e0000001, null, null, null, null]; the leaf is the last real entry, the path is unaffected.",
)
def _non_objects() -> bytes:
    return pi_lines(
        fixture_header(),
        *start(),
        b"42\n",
        *chat(3, e(2), 10, 1),
        b'"a string"\n',
        b"[1,2,3]\n",
        b"true\n",
        *chat(5, e(4), 40, 1),
    )


@fixture(
    "null-line.jsonl",
    "A line that is the JSON literal `null`.",
    "pi 0.73.1 throws `TypeError: Cannot read properties of null (reading 'type')` while indexing: not loadable.",
)
def _null_line() -> bytes:
    return pi_lines(fixture_header(), *start(), *chat(3, e(2), 10, 1), b"null\n", *chat(5, e(4), 40, 1))


@fixture(
    "version-4-header.jsonl",
    "A v3-style file whose header says `version: 4` (newer than pi knows).",
    "Loaded as is (no migration for versions ≥ 3); the header keeps version 4.",
)
def _version4() -> bytes:
    return pi_lines(fixture_header(version=4), *start(), *chat(3, e(2), 10, 1))


@fixture(
    "invalid-timestamps.jsonl",
    'Children whose `timestamp` is not a date (`"yesterday"`, `""`, missing, a number) next to valid ones: the children sort compares NaN.',
    "Children of e0000004 in pi: e0000005, e0000006, e0000007, e0000008, e0000009, e0000011, e0000010 (V8's sort with NaN comparisons as 0: only e0000011/e0000010 move; a number is a valid date). Python's `sorted` with a cmp that returns 0 for NaN gives the same order.",
)
def _bad_ts() -> bytes:
    def u(i: int, t: Any, text: str) -> dict:
        m = user_entry(e(i), e(4), 0, text)
        if t is MISSING:
            del m["timestamp"]
        else:
            m["timestamp"] = t
        return m

    return pi_lines(
        fixture_header(),
        *start(),
        *chat(3, e(2), 10, 1),
        u(5, iso_at(100), "valid, 10:01:40"),
        u(6, "yesterday", "invalid string"),
        u(7, iso_at(50), "valid, 10:00:50"),
        u(8, "", "empty string"),
        u(9, MISSING, "no timestamp key"),
        u(10, ms_at(30), "a number (Unix ms, 10:00:30)"),
        u(11, iso_at(20), "valid, 10:00:20"),
        assistant_entry(e(12), e(11), 60, "Answer to the last one."),
    )


@fixture(
    "type-array.jsonl",
    'An entry whose `type` is a JSON array (`["message"]`) on the path, under a compaction that replaces it; a branch beside it.',
    "pi keeps it in the tree and the path; it is no message (nothing in the context, no totals) and no summarised entry.",
)
def _type_array() -> bytes:
    odd = {"type": ["message"], "id": e(4), "parentId": e(3), "timestamp": iso_at(12), "message": user_msg("odd", 12)}
    return pi_lines(
        fixture_header(),
        *start(),
        user_entry(e(3), e(2), 10, "First."),
        user_entry(e(9), e(3), 11, "Elsewhere."),
        odd,
        assistant_entry(e(5), e(4), 15, "Answered."),
        {
            "type": "compaction",
            "id": e(6),
            "parentId": e(5),
            "timestamp": iso_at(20),
            "summary": "Asked and answered.",
            "firstKeptEntryId": e(5),
            "tokensBefore": 900,
        },
        user_entry(e(7), e(6), 25, "Second."),
        assistant_entry(e(8), e(7), 30, "Done."),
    )
