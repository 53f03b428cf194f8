"""Reading a big session file in blocks, so that the whole file is never held in memory.

A 1 GB session read whole is a 1 GB buffer next to the entries built from it. Read in blocks,
each block is read with the reading loop's rules and dropped: the first block as a file's
start, the others as what follows it (as :meth:`Session.refresh` reads what pi appended),
and the entries are indexed once at the end, as when the file is read whole.

Blocks end after a newline, so that no block ends inside a line, and only the last one's end is
trimmed (a file's end is trimmed as pi's ``trim()`` does): every line reads as it reads in the
whole file, whatever its line ends (a file written with CRLF is read in blocks too).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from pitui.store import tuning
from pitui.store.model import NotASessionError, ReadCancelled

if TYPE_CHECKING:
    from pitui.store.model import LineSource
    from pitui.store.reader import Session


def load_in_blocks(
    cls: type[Session],
    fd: int,
    path: str,
    source: LineSource,
    size: int,
    cancelled: Callable[[], bool] | None = None,
) -> Session | None:
    """The session in ``fd`` (``size`` bytes) read in blocks, or None when it must be read whole:
    its first line is not a current-version header (a v1 or v2 file is migrated whole; a byte
    order mark before the header is decided with the lines after it), or it changed size.
    ``cancelled()`` is asked before each block after the first: True raises :class:`ReadCancelled`."""
    block = tuning.READ_BLOCK_BYTES
    data = os.pread(fd, min(block, size), 0)
    end = _boundary(data, size)
    while end is None and len(data) < size:  # a first line longer than a block
        rest = os.pread(fd, min(block, size - len(data)), len(data))
        if not rest:
            return None
        data += rest
        end = _boundary(data, size)
    if end is None or not data.startswith(b"{"):
        return None
    try:
        first = cls._from_bytes(data, path, False, source, None, 0, 1, index=False, end=end, file_end=end == size)
    except NotASessionError:
        return None  # no header in the first block: the whole file decides
    header = first.header
    if header is None or first.migrated or first.header_offset != 0:
        return None
    # Each block is read from the start of its first line: the few bytes after the last line
    # of the block before are read again rather than joined to the next block (a copy of it).
    base = end  # where the next block starts in the file
    entries, problems, unparsed = first.entries, first.problems, first.unparsed
    while base < size:
        if cancelled is not None and cancelled():
            raise ReadCancelled(f"{path}: read given up after {base:,} of {size:,} bytes")
        data = os.pread(fd, min(block, size - base), base)
        while (cut := _boundary(data, size - base)) is None:  # a line longer than a block
            more_bytes = os.pread(fd, min(block, size - base - len(data)), base + len(data))
            if not more_bytes:
                return None  # the file shrank while it was read: read it whole
            data += more_bytes
        more = cls._from_bytes(
            data, path, False, source, header, base, first.next_line, index=False, end=cut, file_end=base + cut == size
        )
        entries += more.entries
        problems += more.problems
        unparsed += more.unparsed
        first.read_upto, first.next_line, first.torn_line = more.read_upto, more.next_line, more.torn_line
        base += cut
    first._build_index()
    return first


def _boundary(data: bytes, size: int) -> int | None:
    """Where a block of ``data`` ends: after its last newline, or at its end when it is the rest
    of the file (``size`` is its length), or None when it holds no newline (a longer line)."""
    if len(data) == size:
        return size
    at = data.rfind(b"\n")
    return None if at < 0 else at + 1
