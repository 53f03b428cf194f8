"""What the simulated sessions' tools are given and give back: the tool calls (read, edit, write,
bash, grep) a ``devkit.simulator.Session`` executes, pi's diff of an edit, and outputs to show
(``pytest -q``'s, a tiny PNG)."""

from __future__ import annotations

import base64
import difflib
from dataclasses import dataclass
from typing import Any


def pi_diff(old: str, new: str, context: int = 4) -> tuple[str, int | None]:
    """pi's generateDiffString (edit tool details): numbered +/- lines, 4 lines of context."""
    a, b = old.split("\n"), new.split("\n")
    parts: list[tuple[str, list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            parts.append(("=", a[i1:i2]))
        else:
            if i2 > i1:
                parts.append(("-", a[i1:i2]))
            if j2 > j1:
                parts.append(("+", b[j1:j2]))
    width = len(str(max(len(a), len(b))))
    out: list[str] = []
    old_n = new_n = 1
    first: int | None = None
    last_change = False
    pad = " " * width
    for i, (kind, raw) in enumerate(parts):
        if kind in "+-":
            if first is None:
                first = new_n
            for text in raw:
                if kind == "+":
                    out.append(f"+{str(new_n).rjust(width)} {text}")
                    new_n += 1
                else:
                    out.append(f"-{str(old_n).rjust(width)} {text}")
                    old_n += 1
            last_change = True
            continue
        next_change = i < len(parts) - 1 and parts[i + 1][0] in "+-"
        if last_change and next_change:
            if len(raw) <= context * 2:
                shown_a, skipped, shown_b = raw, 0, []
            else:
                shown_a, skipped, shown_b = raw[:context], len(raw) - 2 * context, raw[-context:]
            for text in shown_a:
                out.append(f" {str(old_n).rjust(width)} {text}")
                old_n += 1
                new_n += 1
            if skipped:
                out.append(f" {pad} ...")
                old_n += skipped
                new_n += skipped
                for text in shown_b:
                    out.append(f" {str(old_n).rjust(width)} {text}")
                    old_n += 1
                    new_n += 1
        elif last_change:
            shown = raw[:context]
            for text in shown:
                out.append(f" {str(old_n).rjust(width)} {text}")
                old_n += 1
                new_n += 1
            if len(raw) > len(shown):
                out.append(f" {pad} ...")
                old_n += len(raw) - len(shown)
                new_n += len(raw) - len(shown)
        elif next_change:
            skipped = max(0, len(raw) - context)
            if skipped:
                out.append(f" {pad} ...")
                old_n += skipped
                new_n += skipped
            for text in raw[skipped:]:
                out.append(f" {str(old_n).rjust(width)} {text}")
                old_n += 1
                new_n += 1
        else:
            old_n += len(raw)
            new_n += len(raw)
        last_change = False
    return "\n".join(out), first


def pytest_quiet(results: str, summary: str) -> str:
    """``pytest -q`` output at 80 columns: the progress line, then the summary line."""
    head = results.ljust(80 - len(" [100%]")) + " [100%]"
    return f"{head}\n{summary}"


# --------------------------------------------------------------------------------------------------
# Tool calls


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    output: str | None = None  # bash: the command's output
    exit_code: int = 0
    duration: float | None = None  # seconds
    result: str | None = None  # force the result text (and is_error)
    is_error: bool = False
    id: str = ""


def read(path: str, offset: int | None = None, limit: int | None = None) -> Call:
    args: dict[str, Any] = {"path": path}
    if offset is not None:
        args["offset"] = offset
    if limit is not None:
        args["limit"] = limit
    return Call("read", args)


def edit(path: str, *pairs: tuple[str, str]) -> Call:
    return Call("edit", {"path": path, "edits": [{"oldText": o, "newText": n} for o, n in pairs]})


def write(path: str, content: str) -> Call:
    return Call("write", {"path": path, "content": content})


def bash(command: str, output: str, exit_code: int = 0, duration: float = 1.2, timeout: int | None = None) -> Call:
    args: dict[str, Any] = {"command": command}
    if timeout is not None:
        args["timeout"] = timeout
    return Call("bash", args, output=output, exit_code=exit_code, duration=duration)


def grep(pattern: str, path: str | None = None, glob: str | None = None, ignore_case: bool | None = None) -> Call:
    args: dict[str, Any] = {"pattern": pattern}
    if path is not None:
        args["path"] = path
    if glob is not None:
        args["glob"] = glob
    if ignore_case is not None:
        args["ignoreCase"] = ignore_case
    return Call("grep", args)


def tiny_png(width: int, height: int, pixels: list[tuple[int, int, int]]) -> str:
    """A valid RGB PNG, base64-encoded (for an image block)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b""
    for y in range(height):
        raw += b"\x00" + b"".join(bytes(p) for p in pixels[y * width : (y + 1) * width])
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()
