"""Writing session files safely: whole-line appends, exclusive creation, atomic rewrites.

pi may be appending to the same file at the same time. Each entry therefore goes out as one
``os.write`` of a complete line on an ``O_APPEND`` descriptor, so two writers never interleave
inside a line; a file whose last line is torn gets a newline first, so the new entry stands on a
line of its own.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable

from .trash import TrashError, move_to_trash


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def ends_with_newline(path: str) -> bool:
    """True for an empty file or one whose last byte is a newline."""
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        if handle.tell() == 0:
            return True
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def append_lines(path: str, lines: Iterable[bytes]) -> None:
    """Append complete lines to an existing file: one write per line, then fsync."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        first = not ends_with_newline(path)
        for line in lines:
            _write_all(fd, (b"\n" if first else b"") + line + b"\n")
            first = False
        os.fsync(fd)
    finally:
        os.close(fd)


def create_file(path: str, lines: Iterable[bytes]) -> None:
    """Create a new file (never overwriting one) holding ``lines``."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write_all(fd, b"".join(line + b"\n" for line in lines))
        os.fsync(fd)
    finally:
        os.close(fd)


def rewrite_file(path: str, lines: Iterable[bytes]) -> None:
    """Replace a file's content atomically, the original going to the trash.

    The new content is written to a temporary file beside it and fsynced; the original is then
    moved to the trash (if that fails, nothing has changed) and the new file renamed into place.
    """
    folder = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o777
    fd, temp = tempfile.mkstemp(prefix=".pitui-", suffix=".jsonl.tmp", dir=folder)
    try:
        _write_all(fd, b"".join(line + b"\n" for line in lines))
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    try:
        move_to_trash(path)
    except TrashError:
        os.unlink(temp)
        raise
    try:
        # A link, not a rename: if something created the file meanwhile, it is not overwritten.
        os.link(temp, path)
    except OSError as error:
        raise OSError(f"{path} was moved to the trash but its new version could not be put in place "
                      f"({error.strerror or error}); the new version is at {temp}") from error
    os.unlink(temp)
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
