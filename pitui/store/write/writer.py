"""Whole-line appends, exclusive create, atomic rewrite: the file operations every session write ends in.

pi may be appending to the same file at the same time. Each entry therefore goes out as one
``os.write`` of a complete line on an ``O_APPEND`` descriptor, so two writers never interleave
inside a line; a file whose last line is torn gets a newline first, so the new entry stands on a
line of its own.

A write that fails (a full disk, an I/O error) leaves nothing behind: the part of an append that
made it to the file is cut off again, and a new file that could not be written whole is removed.
The error raised names the file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterable

from pitui.store.write.trash import TrashError, move_to_trash


def _write_all(fd: int, payload: bytes, done: list[int] | None = None) -> None:
    """Write all of ``payload``; ``done[0]`` counts the bytes written, also when a write fails."""
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        if done is not None:
            done[0] += written
        view = view[written:]


def _naming(error: BaseException, path: str) -> BaseException:
    """``error`` with the file's name in it: a failed ``os.write`` or ``fsync`` names none, and
    "No space left on device" alone does not say which write failed."""
    if isinstance(error, OSError) and error.filename is None and error.errno is not None:
        named = OSError(error.errno, error.strerror or os.strerror(error.errno), path)
        named.__cause__ = error
        return named
    return error


# A line another process is appending this very moment can look torn to a reader: the file's
# size may already count bytes a read does not see yet (seen on ext4 in one check of ten while
# pi appends). So a file that seems to end inside a line is looked at again a moment later, a
# few times, before it is taken to be torn.
_TORN_CHECKS = (0.001, 0.002, 0.004, 0.008, 0.016)


def ends_with_newline(path: str) -> bool:
    """True for an empty file or one whose last byte is a newline (once any line being
    appended right now has been written whole)."""
    for pause in (*_TORN_CHECKS, None):
        with open(path, "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size == 0 or os.pread(handle.fileno(), 1, size - 1) == b"\n":
                return True
        if pause is not None:
            time.sleep(pause)
    return False


def append_lines(path: str, lines: Iterable[bytes]) -> None:
    """Append complete lines to an existing file: one write per line, then fsync.

    If a write or the fsync fails, what this call appended is cut off again (see
    :func:`_take_back`) before the error is raised, so that the file is as it was: a partial line
    left at the end would swallow the next line pi appends (pi does not start on a new line),
    and a whole line whose fsync failed would be an action the user was told had failed.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as error:
        raise _naming(error, path) from None
    ours: list[bytes] = []  # what this call wrote, in order
    done = [0]
    try:
        first = not ends_with_newline(path)
        for line in lines:
            payload = (b"\n" if first else b"") + line + b"\n"
            first = False
            done[0] = 0
            try:
                _write_all(fd, payload, done)
            finally:
                if done[0]:
                    ours.append(payload[: done[0]])
        os.fsync(fd)
    except BaseException as error:
        _take_back(fd, path, b"".join(ours))
        raise _naming(error, path) from None
    finally:
        os.close(fd)


def _take_back(fd: int, path: str, ours: bytes) -> None:
    """Cut ``ours`` (the bytes a failed append wrote) off the end of the file again.

    Only while the file still ends with exactly those bytes: if another writer (pi) appended
    after them, its lines must not be cut, and the file is left as it is (the torn line is then
    skipped by readers, and reported). Checking and cutting are two steps: a line pi appends in
    the microseconds between them would be cut with ours. pi takes no lock that pitui could
    take too, so this small window is the price of not leaving a partial line behind, which
    would cost pi's next line for certain. A file that cannot be read back is left as it is.
    """
    if not ours:
        return
    with contextlib.suppress(OSError):
        size = os.fstat(fd).st_size
        if size < len(ours):
            return
        reader = os.open(path, os.O_RDONLY)
        try:
            same_file = os.path.samestat(os.fstat(reader), os.fstat(fd))
            tail = os.pread(reader, len(ours), size - len(ours)) if same_file else b""
        finally:
            os.close(reader)
        if tail == ours:
            os.ftruncate(fd, size - len(ours))


def create_file(path: str, lines: Iterable[bytes]) -> None:
    """Create a new file (never overwriting one) holding ``lines``; if it cannot be written
    whole, it is removed again and the error raised."""
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as error:
        raise _naming(error, path) from None
    try:
        _write_all(fd, b"".join(line + b"\n" for line in lines))
        os.fsync(fd)
    except BaseException as error:
        with contextlib.suppress(OSError):
            if os.path.samestat(os.fstat(fd), os.lstat(path)):  # still the file made here
                os.unlink(path)
        os.close(fd)
        raise _naming(error, path) from None
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
    except BaseException as error:
        os.close(fd)
        os.unlink(temp)
        raise _naming(error, path) from None
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
        raise OSError(
            f"{path} was moved to the trash but its new version could not be put in place "
            f"({error.strerror or error}); the new version is at {temp}"
        ) from error
    os.unlink(temp)
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
