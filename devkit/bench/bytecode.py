"""pitui's modules compiled to bytecode before anything is timed, as ``pip install`` does.

An installed wheel has its ``.pyc`` files written at install time, so a user's ``pitui`` never
compiles its own source. A checkout run with ``python -m pitui`` compiles every module it
imports, and where ``PYTHONDONTWRITEBYTECODE`` is set (as on some shared machines) it does so
again on every start: about 27 ms of each run that no user waits for. Each benchmark calls
:func:`ensure_compiled` first, so both kinds of checkout time what an installed pitui does.
"""

from __future__ import annotations

import compileall
from pathlib import Path

import pitui


def ensure_compiled() -> Path:
    """Write the ``__pycache__`` files of the pitui package that runs (git ignores them);
    returns the package's folder. Files already compiled and unchanged are left as they are."""
    package = Path(pitui.__file__).resolve().parent
    compileall.compile_dir(package, quiet=1)
    return package
