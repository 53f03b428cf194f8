"""Moving files to the trash, and saying why when that fails.

For the trash action, and for the atomic rewrite of an old-format file, which keeps the original
in the trash.
"""

from __future__ import annotations

import os

_ATTEMPTS = 3


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
    for attempt in range(_ATTEMPTS):
        try:
            send2trash(path)
            break
        except TrashPermissionError as error:
            raise TrashError(f"{path}: cannot move it to the trash: {error}") from error
        except FileExistsError as error:
            # send2trash makes the trash's folders when they are missing, after checking that
            # they are: another process trashing a file at the same moment may make them in
            # between. Nothing was moved yet; the second try finds them there.
            if attempt == _ATTEMPTS - 1 or not os.path.lexists(path):
                raise TrashError(f"{path}: cannot move it to the trash: {error.strerror or error}") from error
        except OSError as error:
            raise TrashError(f"{path}: cannot move it to the trash: {error.strerror or error}") from error
    if os.path.lexists(path):
        raise TrashError(f"{path}: the trash did not take it; it is still there")
