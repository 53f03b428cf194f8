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
# A whole terminal escape sequence: CSI (colours, cursor moves), OSC (titles, clipboard, links,
# ended by BEL or ST), and ESC with one more character. Shown as one ␛, with nothing left over.
_SEQUENCE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -~]?")
ESCAPE_SYMBOL = "\u241b"  # ␛


def _replace(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code in (0x09, 0x0A, 0x0D):  # in one line: tabs and line breaks are spaces
        return " "
    if code < 0x20:
        return chr(0x2400 + code)  # Control Pictures: ␇ for BEL, ␈ for BS...
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"  # C1 controls, lone surrogates, bidi overrides


def safe(text: str, *, multiline: bool = False) -> str:
    """``text`` as it may be shown: every escape sequence as one ␛, every other control
    character as its symbol (␇), lone surrogates and bidi overrides as U+FFFD, never
    interpreted. ``multiline`` keeps newlines and tabs; otherwise they become spaces, so a
    one-line field cannot break into lines that look like pitui's own."""
    pattern = _UNSAFE if multiline else _UNSAFE_IN_LINE
    if not pattern.search(text):
        return text
    return pattern.sub(_replace, _SEQUENCE.sub(ESCAPE_SYMBOL, text))


def safe_line(text: str) -> str:
    """One line of untrusted text, safe to show."""
    return safe(text)


def safe_lines(text: str) -> str:
    """Untrusted text of several lines (newlines and tabs kept), safe to show."""
    return safe(text, multiline=True)


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
