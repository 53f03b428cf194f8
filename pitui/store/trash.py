"""Moving files to the trash, and saying why when that fails."""

from __future__ import annotations

import os


class TrashError(OSError):
    """The file could not be moved to the trash; it is still where it was."""


def move_to_trash(path: str) -> None:
    """Move ``path`` to the user's trash (the freedesktop trash on Linux).

    On failure the file stays in place and :class:`TrashError` says why; nothing is deleted.
    """
    from send2trash import send2trash
    from send2trash.exceptions import TrashPermissionError

    if not os.path.lexists(path):
        raise TrashError(f"{path}: no such file")
    try:
        send2trash(path)
    except TrashPermissionError as error:
        raise TrashError(f"{path}: cannot move it to the trash: {error}") from error
    except OSError as error:
        raise TrashError(f"{path}: cannot move it to the trash: {error.strerror or error}") from error
    if os.path.lexists(path):
        raise TrashError(f"{path}: the trash did not take it; it is still there")
