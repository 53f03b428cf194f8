"""Session text is untrusted: what it may contain before it reaches a terminal.

Used by the command line and by every widget. Nothing here imports textual.
"""

from __future__ import annotations

import re

__all__ = ["safe", "safe_line", "safe_lines", "visible_controls"]

# C0 and C1 controls (ESC starts every terminal escape sequence), DEL, lone surrogates (which
# JSON allows but no terminal can show), and the bidirectional overrides and isolates, which
# would reorder the text around them on screen.
_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")
_UNSAFE_IN_LINE = re.compile(rf"[\x00-\x1f\x7f-\x9f\ud800-\udfff{_BIDI}]")


def _replace(match: re.Match[str]) -> str:
    char = match.group()
    return "\ufffd" if "\ud800" <= char <= "\udfff" else " "


def safe(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character (terminal escapes included) replaced by a space,
    lone surrogates by U+FFFD. ``multiline`` keeps newlines and tabs; otherwise they become
    spaces too, so a one-line field cannot break into lines that look like pitui's own."""
    pattern = _UNSAFE if multiline else _UNSAFE_IN_LINE
    return pattern.sub(_replace, text)


def safe_line(text: str) -> str:
    """One line of untrusted text, safe to show."""
    return _UNSAFE_IN_LINE.sub(_replace, text)


def safe_lines(text: str) -> str:
    """Untrusted text of several lines (newlines and tabs kept), safe to show."""
    return _UNSAFE.sub(_replace, text)


def _picture(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # U+2400 Control Pictures: ␛ for ESC, ␇ for BEL...
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


def visible_controls(text: str) -> str:
    """Untrusted text for a file a person reads later (exports): control characters, newlines
    and tabs aside, are shown as their symbols (``␛]52;...``), so an escape sequence in a
    session is seen, not run, when the file is printed to a terminal."""
    return _UNSAFE.sub(_picture, text)
