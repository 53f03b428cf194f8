"""Reading a big session file on several cores: forked children parse the later lines.

The main process reads the first part of the lines itself while forked children parse the rest
into compact records, sent back through a pipe and merged in file order. Only a file whose first
line is a current header goes this way, and only when :func:`pitui.store.tuning.parallel_workers`
finds idle cores and a process that may fork (:func:`pitui.store.tuning.can_fork`: one thread).
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import os
import signal
from collections.abc import Iterator
from typing import Any

import orjson

from pitui.store import fastline, tuning
from pitui.store.js import MISSING, Opaque, strip_js_whitespace
from pitui.store.jsonl import iter_lines
from pitui.store.migrate import CURRENT_VERSION, version_number
from pitui.store.model import Entry, LineSource


class Chunk:
    """The lines ``data[start:end]``, parsed by a forked child that writes its records to a pipe."""

    def __init__(self, pid: int, fd: int, start: int, end: int, first_number: int) -> None:
        self.pid, self.fd = pid, fd
        self.start, self.end, self.first_number = start, end, first_number

    def lines(self, data: bytes) -> Iterator[tuple[int, int, bytes]]:
        """The chunk's lines, for the main process to read when the child failed."""
        number = self.first_number + data.count(b"\n", 0, self.start)
        return iter_lines(data, self.start, self.end, number)

    def result(self) -> list[tuple[Any, ...]] | None:
        """The child's records, or None if it failed (its lines are then read by the caller)."""
        parts = []
        try:
            while True:
                part = os.read(self.fd, 1 << 20)
                if not part:
                    break
                parts.append(part)
            payload = b"".join(parts)
            if not payload.endswith(_END_MARK):
                return None
            records = marshal.loads(memoryview(payload)[: -len(_END_MARK)])
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return records if type(records) is list else None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.pid:
            with contextlib.suppress(OSError):  # gone already unless the caller gave up early
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # reaped by someone else
                os.waitpid(self.pid, 0)
            self.pid = 0


_END_MARK = b"\x00pitui-chunk-end"


def start_parallel(data: bytes, first_number: int) -> tuple[list[Chunk], tuple[int, int, int]] | None:
    """Fork the children that parse the later lines of ``data``; returns them and the main
    process's own range ``(start, end, first line number)``, or None when the file is better read
    in one pass (too few cores, no fork, or a first line that is not a plain v3 header)."""
    workers = tuning.parallel_workers()
    if workers < 1:
        return None
    head = strip_js_whitespace(data, start=True)
    tail = len(data) - strip_js_whitespace(data, start=False)
    # Only a file whose first line is a current header: anything else takes the one-pass path.
    first_end = data.find(b"\n", head, tail)
    try:
        header = orjson.loads(data[head : first_end if first_end >= 0 else tail])
    except orjson.JSONDecodeError:
        return None
    if (
        type(header) is not dict
        or header.get("type") != "session"
        or type(header.get("id")) is not str
        or not version_number(header.get("version", MISSING)) >= CURRENT_VERSION
    ):
        return None
    size = tail - head
    cuts = [head]
    for k in range(workers):
        share = tuning.MAIN_SHARE + (1 - tuning.MAIN_SHARE) * k / workers
        at = data.find(b"\n", max(head + int(size * share), cuts[-1]), tail)
        if at < 0 or at + 1 >= tail:
            break
        cuts.append(at + 1)
    cuts.append(tail)
    if len(cuts) < 3:
        return None
    chunks: list[Chunk] = []
    try:
        for start, end in itertools.pairwise(cuts[1:]):
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no fork: the main process reads the rest itself
                os.close(read_fd)
                os.close(write_fd)
                chunks.append(Chunk(0, -1, start, cuts[-1], first_number))
                break
            if pid == 0:  # the child: pure parsing, then out without running any cleanup
                status = 1
                try:
                    os.close(read_fd)
                    number = first_number + data.count(b"\n", 0, start)
                    payload = marshal.dumps(parse_chunk(data, start, end, number)) + _END_MARK
                    view = memoryview(payload)
                    while view:
                        view = view[os.write(write_fd, view) :]
                    status = 0
                finally:
                    os._exit(status)
            os.close(write_fd)
            chunks.append(Chunk(pid, read_fd, start, end, first_number))
    except BaseException:
        for chunk in chunks:
            chunk.close()
        raise
    return chunks, (head, cuts[1], first_number + data.count(b"\n", 0, head))


def parse_chunk(data: bytes, start: int, end: int, first: int) -> list[tuple[Any, ...]]:
    """In a child: each line's record. An ordinary entry becomes ``(line, offset, length, type,
    id, parentId, timestamp, role, provider_model, textless, usage_figures, data or None)`` (its value kept
    only if it is not a message; ``MISSING`` sent as ``...``); any other line (unreadable, not an
    object, a header, an id that is an array or object) becomes ``(line, offset, length)``, to
    be read again by the main process with every rule."""
    records: list[tuple[Any, ...]] = []
    add = records.append
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    fast_entry = fastline.message_entry
    for number, offset, line in iter_lines(data, start, end, first):
        if line[:1] != b"{":  # not an object (or junk orjson would copy whole to refuse): the main process's
            add((number, offset, len(line)))
            continue
        kind: Any = "message"
        value: Any = None
        entry = fast_entry(line, number, offset, None)
        if entry is not None:
            pass  # a message: its body is read again when shown
        else:
            try:
                value = loads(line)
            except decode_error:
                add((number, offset, len(line)))
                continue
            if type(value) is not dict:
                add((number, offset, len(line)))
                continue
            kind = value.get("type")
            if kind == "session":
                add((number, offset, len(line)))
                continue
            entry = Entry(value, number, offset, len(line))
        if type(entry.id) is Opaque or type(entry.parent_id) is Opaque:
            add((number, offset, len(line)))
            continue
        model = entry.provider_model
        if model is not None:
            model = (... if model[0] is MISSING else model[0], ... if model[1] is MISSING else model[1])
        add(
            (
                number,
                offset,
                entry.length,
                ... if entry.type is MISSING else entry.type,
                ... if entry.id is MISSING else entry.id,
                ... if entry.parent_id is MISSING else entry.parent_id,
                ... if entry.timestamp is MISSING else entry.timestamp,
                ... if entry.role is MISSING else entry.role,
                model,
                entry.textless,
                entry.usage_figures,
                None if kind == "message" else value,  # a message's body is read again when shown
            )
        )
    return records


def merge(
    records: list[tuple[Any, ...]], data: bytes, entries: list[Entry], source: LineSource | None, consume: Any
) -> int:
    """A child's records into ``entries``, in file order; the lines it left are read by
    ``consume`` (the main reading loop). Returns the last line number."""
    new, append = Entry.__new__, entries.append
    number = 0
    for record in records:
        number = record[0]
        if len(record) == 3:
            offset, length = record[1], record[2]
            consume(((number, offset, data[offset : offset + length]),))
            continue
        _, offset, length, kind, entry_id, parent_id, timestamp, role, model, textless, figures, value = record
        entry = new(Entry)
        entry.type = MISSING if kind is ... else kind
        entry.id = MISSING if entry_id is ... else entry_id
        entry.parent_id = MISSING if parent_id is ... else parent_id
        entry.timestamp = MISSING if timestamp is ... else timestamp
        entry.line, entry.offset, entry.length = number, offset, length
        entry.role = MISSING if role is ... else role
        if model is not None and (model[0] is ... or model[1] is ...):
            model = (MISSING if model[0] is ... else model[0], MISSING if model[1] is ... else model[1])
        entry.provider_model = model
        entry.textless = textless
        entry.usage_figures = figures
        entry._source = source
        entry._data = value
        append(entry)
    return number
