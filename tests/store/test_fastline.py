"""The line index's fast path (msgspec, the tree's fields only) against the exact path (orjson and
the reader's rules): on any line the fast path accepts, the entry's fields are the exact path's,
and a session read with the fast path is the session read without it.

Lines are written by hand here, so that they can hold what no JSON library writes: duplicate
keys, escaped keys, odd spacing, numbers spelt as ``1e2``, ``-0``, too big for 64 bits or for a
double, lone surrogate escapes and invalid UTF-8; then some are cut or have a byte changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (pip install -e .[test])")
from helpers.strategies import mutated_bytes  # noqa: E402
from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pitui.store import fastline  # noqa: E402
from pitui.store.jsonl import BadLine, parse_fast  # noqa: E402
from pitui.store.model import Entry  # noqa: E402
from pitui.store.reader import Session  # noqa: E402

# Every field an entry keeps (a field added to Entry is compared without a change here).
FIELDS = tuple(name for name in Entry.__slots__ if not name.startswith("_"))


def fields(entry: Entry) -> str:
    """What the tree, rows and totals read of an entry, spelt so that ``1`` differs from ``1.0``
    and ``-0.0`` from ``0.0``."""
    return repr(tuple(getattr(entry, name) for name in FIELDS))


def exact_entry(line: bytes) -> Entry | None:
    """The entry the exact path makes of a message line (None: not a message, or unreadable)."""
    try:
        value = parse_fast(line)
    except BadLine:
        return None
    if type(value) is not dict or value.get("type") != "message":
        return None
    return Entry.from_data(value, 7, 100, len(line), None, False)


# ------------------------------------------------------------------------------ lines written by hand


class Raw:
    """A token written as it is (a number spelt oddly, a string with a bad escape)."""

    def __init__(self, text: bytes) -> None:
        self.text = text


NUMBERS = [b"0", b"-0", b"1", b"-1", b"1.0", b"-0.0", b"1e2", b"2E-3", b"10E0", b"0.5", b"123"]
NUMBERS += [b"9007199254740991", b"9007199254740993", b"-9007199254740993", b"18446744073709551615"]
NUMBERS += [b"18446744073709551616", b"123456789012345678901234567890", b"1e400", b"-1e400", b"1e-400"]
NOT_JSON = [b"01", b"1.", b".5", b"+1", b"NaN", b"Infinity", b"0x10", b"tru", b"'x'"]
STRINGS = [b'"\\ud800"', b'"\\udc00x"', b'"\\ud83d\\ude00"', b'"\\u2028"', b'"a\\u0000b"', b'"\\x"', b'"\xff"']
STRINGS += [b'"\xed\xa0\x80"', b'"\xc3"', b'"\\u00e9"', b'"tab\there"', b'"\\/\\b\\f\\n\\r\\t"', b'" \\u00a0 "']
BLANK_TEXTS = ["", " ", "\u00a0", "\u2028", "\ufeff", " x", "\t\n", "\u3000\u205f"]
KEYS = ("type", "id", "parentId", "timestamp", "message", "role", "provider", "model", "stopReason", "content")
KEYS += ("usage", "input", "output", "cacheRead", "cacheWrite", "cost", "total", "text", "extra")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
    st.sampled_from(BLANK_TEXTS),
    st.sampled_from(NUMBERS + STRINGS).map(Raw),
    st.integers(0, 19).flatmap(lambda n: st.sampled_from(NOT_JSON).map(Raw) if n == 0 else st.just(n)),
)
any_json = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(st.tuples(st.sampled_from(KEYS), inner), max_size=3)),
    max_leaves=8,
)


def pairs(required: dict[str, Any]) -> Any:
    """An object's key-value pairs: the given ones (each sometimes left out, sometimes given an
    odd value, sometimes written twice) in a random order, with random others among them."""

    @st.composite
    def build(draw: Any) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        for key, value in required.items():
            choice = draw(st.integers(0, 24))
            if choice == 0:
                continue
            if choice == 1:
                value = draw(any_json)
            out.append((key, draw(value) if isinstance(value, st.SearchStrategy) else value))
            if choice == 2:
                out.insert(draw(st.integers(0, len(out))), (key, draw(any_json)))
        for _ in range(draw(st.integers(0, 2)) // 2):
            out.insert(draw(st.integers(0, len(out))), (draw(st.sampled_from(KEYS)), draw(any_json)))
        return draw(st.permutations(out)) if draw(st.booleans()) else out

    return build()


number = st.one_of(
    st.integers(0, 10**6),
    st.floats(0, 1e3, allow_nan=False),
    st.integers(0, 9).flatmap(lambda n: st.sampled_from(NUMBERS).map(Raw) if n == 0 else st.integers(0, 10**9)),
)
text_or_blank = st.one_of(st.text(max_size=4), st.sampled_from(BLANK_TEXTS))
block = pairs({"type": st.sampled_from(["text", "toolCall", "thinking", "image"]), "text": text_or_blank})
usage = pairs(
    {
        "input": number,
        "output": number,
        "cacheRead": number,
        "cacheWrite": number,
        "totalTokens": number,
        "cost": pairs({"input": number, "total": number}),
    }
)
message = pairs(
    {
        "role": st.sampled_from(["assistant", "toolResult", "user", "system", "bashExecution"]),
        "content": st.one_of(text_or_blank, st.lists(block, max_size=3)),
        "provider": st.text(max_size=3),
        "model": st.text(max_size=3),
        "usage": usage,
        "stopReason": st.sampled_from(["stop", "toolUse", "error", "aborted", "", None]),
    }
)
line_pairs = pairs(
    {
        "type": st.sampled_from(["message"] * 6 + ["label", "session"]),
        "id": st.sampled_from(["a1b2c3d4", "e0000000"]),
        "parentId": st.sampled_from([None, "a1b2c3d4"]),
        "timestamp": st.sampled_from(["2026-01-31T00:00:00.000Z", "nope"]),
        "message": message,
    }
)


def write(value: Any, draw: Any) -> bytes:
    space = draw(st.sampled_from([b"", b"", b"", b"", b"", b"", b" ", b"\t", b"\r", b"\n "]))
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, list) and value and all(isinstance(p, tuple) for p in value):
        parts = [write_key(k, draw) + space + b":" + space + write(v, draw) for k, v in value]
        return b"{" + space + b",".join(parts) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(write(v, draw) for v in value) + space + b"]"
    if isinstance(value, str):
        return write_key(value, draw)
    if value is None:
        return b"null"
    if isinstance(value, bool):
        return b"true" if value else b"false"
    return repr(value).encode()


def write_key(text: str, draw: Any) -> bytes:
    """A string, sometimes with a letter written as a ``\\u`` escape."""
    written = json.dumps(text, ensure_ascii=draw(st.booleans())).encode("utf-8", errors="surrogatepass")
    if text and text.isascii() and text.isalpha() and draw(st.integers(0, 29)) == 0:
        at = draw(st.integers(0, len(text) - 1))
        written = (
            json.dumps(text[:at]).encode()[:-1] + b"\\u%04x" % ord(text[at]) + json.dumps(text[at + 1 :])[1:].encode()
        )
    return written


@st.composite
def message_lines(draw: Any) -> bytes:
    line = b"{" + b",".join(write_key(k, draw) + b":" + write(v, draw) for k, v in draw(line_pairs)) + b"}"
    change = draw(st.integers(0, 11))
    if change == 0 and line:
        at = len(line) - 1 - draw(st.integers(0, len(line) - 1))  # from the end: not often the first byte
        line = line[:at] + bytes([line[at] ^ draw(st.integers(1, 255))]) + line[at + 1 :]
    elif change == 1:
        line = line[: draw(st.integers(1, len(line)))]
    elif change == 2:
        line += draw(st.sampled_from([b" ", b"\r", b"\t", b"x", b"\xc2\xa0", b"}", b"\x0c"]))
    elif change == 3:
        line = line.replace(b":", b":\x0c", 1)
    return line.replace(b"\n", b" ")


ORDINARY = (
    b'{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-31T00:00:00.000Z","message":'
    b'{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"text","text":" "},'
    b'{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}],"provider":"anthropic",'
    b'"model":"claude","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,'
    b'"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.30000000000000004}},'
    b'"stopReason":"toolUse","timestamp":1769817600000}}'
)


@example(ORDINARY)
@example(ORDINARY.replace(b'"type":"message"', b'"type":"label","typ\\u0065":"message"'))
@example(ORDINARY.replace(b'"id":"a1b2c3d4"', b'"id":"a1b2c3d4","id":5'))
@example(ORDINARY.replace(b'"input":10', b'"input":123456789012345678901234567890'))
@example(ORDINARY.replace(b'"input":10', b'"input":10,"input":1e2'))
@example(ORDINARY.replace(b'"thinking":"t"', b'"thinking":"\xff"'))
@example(ORDINARY.replace(b'"thinking":"t"', b'"thinking":"\\ud800"'))
@example(ORDINARY.replace(b'"text":" "', b'"text":"\\u2028"'))
@example(ORDINARY.replace(b'"output":2', b'"output":-0'))
@example(ORDINARY.replace(b'"total":0.30000000000000004', b'"total":1e400'))
@example(ORDINARY.replace(b'{"type":"text","text":" "}', b"null"))
@given(message_lines())
def test_a_line_the_fast_path_reads_gives_the_exact_paths_fields(line: bytes) -> None:
    fast = fastline.message_entry(line, 7, 100, None)
    exact = exact_entry(line)
    if fast is None:
        return
    assert exact is not None, "the fast path read a line the exact path refuses"
    assert fields(fast) == fields(exact)


def test_an_ordinary_message_line_takes_the_fast_path() -> None:
    """pi's lines are what the fast path is for: one it refused would cost a second decoding."""
    fast = fastline.message_entry(ORDINARY, 7, 100, None)
    assert fast is not None
    assert fast.usage_figures == (10, 2, 0, 0, 0.30000000000000004, 1)
    assert fast.textless is True and fast.provider_model == ("anthropic", "claude")


def test_a_message_is_decoded_by_its_role_and_an_odd_role_is_left_to_the_exact_path() -> None:
    """Each role keeps its own fields; two different roles (JavaScript takes the last), an
    unknown role or none at all is read by the exact path, which gives them their rules."""
    user = ORDINARY.replace(b'"role":"assistant"', b'"role":"us\\u0065r"')
    fast = fastline.message_entry(user, 7, 100, None)
    assert fast is not None and fast.role == "user"
    assert (fast.provider_model, fast.usage_figures, fast.textless) == (None, None, False)
    assert fields(fast) == fields(exact_entry(user))  # type: ignore[arg-type]
    tool = ORDINARY.replace(b'"role":"assistant"', b'"role":"toolResult"')
    assert fastline.message_entry(tool, 7, 100, None).usage_figures == (10, 2, 0, 0, 0.30000000000000004, 0)  # type: ignore[union-attr]
    for odd in (
        ORDINARY.replace(b'"role":"assistant"', b'"role":"user","role":"assistant"'),
        ORDINARY.replace(b'"role":"assistant"', b'"role":"narrator"'),
        ORDINARY.replace(b'"role":"assistant",', b""),
    ):
        assert fastline.message_entry(odd, 7, 100, None) is None
        assert exact_entry(odd) is not None
    assert exact_entry(ORDINARY.replace(b'"role":"assistant"', b'"role":"user","role":"assistant"')).role == "assistant"  # type: ignore[union-attr]


# ------------------------------------------------------------------------------ whole sessions


@contextlib.contextmanager
def _file(data: bytes) -> Iterator[str]:
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    try:
        os.write(fd, data)
        os.close(fd)
        yield path
    finally:
        os.unlink(path)


def _read(path: str, fast: bool) -> tuple[Any, ...]:
    with contextlib.ExitStack() as stack:
        if not fast:
            stack.enter_context(mock.patch.object(fastline, "message_entry", lambda *args: None))
            stack.enter_context(mock.patch.object(fastline, "read_lines", lambda *args: None))
        try:
            session = Session.load(path)
        except Exception as error:
            return (type(error).__name__, str(error))
        found = (
            [fields(e) for e in session.entries],
            [str(p) for p in session.problems],
            session.unparsed,
            session.header,
            # An array or object id is an Opaque key, equal only to itself: compared as spelt.
            repr(session.labels),
            repr(session.leaf_id),
            (session.read_upto, session.next_line, session.torn_line),
        )
        if session.source is not None:
            session.source.close()
        return found


@given(mutated_bytes(), st.lists(message_lines(), max_size=4), st.data())
def test_a_session_read_with_the_fast_path_is_the_one_read_without(data: bytes, more: list[bytes], draw: Any) -> None:
    rows = data.split(b"\n")
    for line in more:
        rows.insert(draw.draw(st.integers(min(1, len(rows)), len(rows))), line)
    with _file(b"\n".join(rows)) as path:
        assert _read(path, fast=True) == _read(path, fast=False)


# ------------------------------------------------------------------------------ runs of lines

HEADER = b'{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}'
LABEL = (
    b'{"type":"label","id":"l%d","parentId":"%s","timestamp":"2026-01-01T00:00:01.000Z","targetId":"m0","label":"x"}'
)
# Lines a run cannot take whole: each sends its run to the line-at-a-time path, or (the second
# header, a label) to the exact path for that line alone.
ODD_LINES = [
    b"",
    b"   ",
    ORDINARY + b" ",
    b" " + ORDINARY,
    ORDINARY + b" " + ORDINARY,
    b"{not json",
    b"null",
    b"[1,2]",
    HEADER,
    ORDINARY.replace(b'"id":"a1b2c3d4"', b'"id":5'),
    ORDINARY.replace(b'"role":"assistant"', b'"role":"narrator"'),
    ORDINARY.replace(b'"thinking":"t"', b'"thinking":"\\ud800"'),
    ORDINARY[:-7],
]
# A line cut in two where the second half starts a value ("content":[ | {"type":...): with a
# line of two values in the same run, there are as many values as lines, and only each line's
# closing brace tells that the first half is no JSON on its own.
SPLIT = ORDINARY.index(b'"content":[') + len(b'"content":[')
FIRST_HALF, SECOND_HALF = ORDINARY[:SPLIT], ORDINARY[SPLIT:]
ODD_LINES += [FIRST_HALF, SECOND_HALF]


def _message(k: int, parent: str | None) -> bytes:
    spelt = b"null" if parent is None else b'"%s"' % parent.encode()
    return ORDINARY.replace(b'"id":"a1b2c3d4"', b'"id":"m%d"' % k).replace(b'"parentId":null', b'"parentId":' + spelt)


def _session(odd: dict[int, bytes], count: int = 40, end: bytes = b"\n") -> bytes:
    rows, parent = [HEADER], None
    for k in range(count):
        if k in odd:
            rows.append(odd[k])
        elif k % 7 == 3:
            rows.append(LABEL % (k, str(parent).encode()))
        else:
            rows.append(_message(k, parent))
            parent = f"m{k}"
    return b"\n".join(rows) + end


def test_an_ordinary_session_is_read_many_lines_at_a_time() -> None:
    """pi's files take the runs whole: a run refused would cost a second decoding of its lines."""
    taken: list[int | None] = []
    read_lines = fastline.read_lines

    def counted(*args: Any) -> int | None:
        taken.append(read_lines(*args))
        return taken[-1]

    data = _session({})
    with _file(data) as path, mock.patch.object(fastline, "read_lines", counted):
        session = Session.load(path)
        assert session.source is not None
        session.source.close()
    assert taken and None not in taken
    assert len(session.entries) == 40 and not session.problems
    assert [e.type for e in session.entries[:4]] == ["message", "message", "message", "label"]
    assert session.entries[5].parent_id == "m4" and session.entries[5].line == 7
    assert session.next_line == 42
    with _file(data) as path:
        assert _read(path, fast=True) == _read(path, fast=False)
    # A file written with CRLF line ends takes the runs too, each line's length with its CR.
    taken.clear()
    with _file(data.replace(b"\n", b"\r\n")) as path, mock.patch.object(fastline, "read_lines", counted):
        crlf = Session.load(path)
        assert crlf.source is not None
        crlf.source.close()
        assert _read(path, fast=True) == _read(path, fast=False)
    assert taken and None not in taken
    # In runs of a few lines each, as many runs as a big file has.
    taken.clear()
    with (
        _file(data.replace(b"\n", b"\r\n")) as path,
        mock.patch.object(fastline, "read_lines", counted),
        mock.patch.object(fastline, "RUN_BYTES", 2000),
    ):
        assert _read(path, fast=True) == _read(path, fast=False)
    assert len(taken) > 5 and None not in taken
    # (the last line's CR goes with the file's trimmed end, as pi's trim() takes it)
    assert [e.length for e in crlf.entries] == [e.length + 1 for e in session.entries[:-1]] + [
        session.entries[-1].length
    ]


@example({}, 64, b"\n")
@example({0: b""}, 64, b"")
@example({10: ORDINARY + b"\r", 30: HEADER}, 300, b"\n")
@example({10: ORDINARY[:-1] + b"\r", 30: b"{}\r"}, 300, b"\n")
@example({39: ORDINARY[:-7]}, 1 << 20, b"")
@example({5: FIRST_HALF, 6: SECOND_HALF, 20: ORDINARY + b" " + ORDINARY}, 1 << 20, b"\n")
@given(
    st.dictionaries(st.integers(0, 39), st.sampled_from(ODD_LINES), max_size=4),
    st.sampled_from([1, 64, 300, 2000, 1 << 20]),
    st.sampled_from([b"\n", b"", b"\n\n", b" \n"]),
)
def test_a_session_read_in_runs_is_the_one_read_a_line_at_a_time(odd: dict[int, bytes], run: int, end: bytes) -> None:
    """Runs of any size, odd lines anywhere (the run they fall in read a line at a time, what it
    appended taken back), the file's end with or without a newline: the same entries, problems,
    unparsed lines, line numbers and read positions as without the fast paths."""
    with _file(_session(odd, end=end)) as path, mock.patch.object(fastline, "RUN_BYTES", run):
        assert _read(path, fast=True) == _read(path, fast=False)


def test_a_session_read_in_blocks_and_runs_is_the_one_read_a_line_at_a_time() -> None:
    """A big file is read in blocks (pitui.store.blocks), each block's lines in runs."""
    from pitui.store import tuning

    data = _session({25: b"{not json", 60: b"", 61: HEADER}, count=120)
    with (
        _file(data) as path,
        mock.patch.object(tuning, "READ_BLOCK_BYTES", 4096),
        mock.patch.object(tuning, "read_in_blocks", lambda size: True),
        mock.patch.object(fastline, "RUN_BYTES", 1500),
    ):
        fast = _read(path, fast=True)
        assert fast == _read(path, fast=False)
    assert len(fast[0]) == 117 and len(fast[1]) == 2  # (the blank line is no problem)


@pytest.mark.parametrize("end", [b"\r\n", b"\n", b"  \r\n\n", b""])
def test_a_file_written_with_crlf_is_read_in_blocks_of_their_size(end: bytes) -> None:
    """Blocks end after any newline: a CRLF file is cut into blocks like any other (it was once
    gathered into one, a block at a time), and reads as the whole file reads."""
    from pitui.store import blocks, tuning

    data = _session({25: b"{not json", 60: b"", 61: HEADER}, count=120, end=b"").replace(b"\n", b"\r\n") + end
    longer: list[int] = []
    boundary = blocks._boundary

    def found(chunk: bytes, size: int) -> int | None:
        cut = boundary(chunk, size)
        if cut is None:
            longer.append(len(chunk))
        return cut

    with (
        _file(data) as path,
        mock.patch.object(tuning, "READ_BLOCK_BYTES", 4096),
        mock.patch.object(tuning, "read_in_blocks", lambda size: True),
        mock.patch.object(blocks, "_boundary", found),
    ):
        fast = _read(path, fast=True)
        assert fast == _read(path, fast=False)
        with mock.patch.object(tuning, "read_in_blocks", lambda size: False):
            assert _read(path, fast=True) == fast  # the file read whole
    assert not longer
    assert len(fast[0]) == 117 and len(fast[1]) == 2
