"""Where the generators in tools/ find pi's oracle script: ``$PI_ORACLE`` (pi's SessionManager as
a command that prints a session as canonical JSON). No default: it lives outside the repository."""

from __future__ import annotations

import os


def pi_oracle() -> str:
    """The oracle script's path, or exit saying how to give it."""
    oracle = os.environ.get("PI_ORACLE")
    if not oracle or not os.path.isfile(oracle):
        why = f"; {oracle} is not a file" if oracle else ""
        raise SystemExit(f"set PI_ORACLE to pi's oracle script (pi-oracle.mjs){why}")
    return oracle
