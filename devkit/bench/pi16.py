"""The entries pi 1.6.0 writes that pi 0.73.1 did not, for the benchmark data: the system
message at the start of every session (and its checkpoint in compactions), cache-warming
``usage`` entries, and ``context_edit`` entries. Key orders are pi 1.6.0's
(``shared/reference/pi-1.6.md`` F2-F4, F6, W9); sizes are those of pi's default prompt and its
four default tools (about 5.5 KB in all).
"""

from __future__ import annotations

import random
from typing import Any

# pi's four default tools, as its first system message declares them (name, description, the
# JSON schema of the arguments).
_STRING = {"type": "string"}
_NUMBER = {"type": "number"}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "read",
        "description": (
            "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are "
            "sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit "
            "first). Use offset/limit for large files. When you need the full file, continue with offset "
            "until complete."
        ),
        "parameters": {
            "type": "object",
            "required": ["path"],
            "properties": {
                "path": {**_STRING, "description": "Path to the file to read (relative or absolute)"},
                "offset": {**_NUMBER, "description": "Line number to start reading from (1-indexed)"},
                "limit": {**_NUMBER, "description": "Maximum number of lines to read"},
            },
        },
    },
    {
        "name": "bash",
        "description": (
            "Execute a bash command in the current working directory. Returns stdout and stderr. Output is "
            "truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is "
            "saved to a temp file. Optionally provide a timeout in seconds."
        ),
        "parameters": {
            "type": "object",
            "required": ["command"],
            "properties": {
                "command": {**_STRING, "description": "Bash command to execute"},
                "timeout": {**_NUMBER, "description": "Timeout in seconds (optional, no default timeout)"},
            },
        },
    },
    {
        "name": "edit",
        "description": (
            "Edit a file by replacing exact text. The oldText must match exactly (including whitespace). Use "
            "this for precise, surgical edits."
        ),
        "parameters": {
            "type": "object",
            "required": ["path", "oldText", "newText"],
            "properties": {
                "path": {**_STRING, "description": "Path to the file to edit (relative or absolute)"},
                "oldText": {**_STRING, "description": "Exact text to find and replace (must match exactly)"},
                "newText": {**_STRING, "description": "New text to replace the old text with"},
            },
        },
    },
    {
        "name": "write",
        "description": (
            "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
            "Automatically creates parent directories."
        ),
        "parameters": {
            "type": "object",
            "required": ["path", "content"],
            "properties": {
                "path": {**_STRING, "description": "Path to the file to write (relative or absolute)"},
                "content": {**_STRING, "description": "Content to write to the file"},
            },
        },
    },
]


def system_sections(rng: random.Random, prose: str, cwd: str) -> dict[str, str]:
    """The sections of pi's prompt (preamble, tools, rules, docs, cwd), about 3 KB of text."""

    def text(lo: int, hi: int) -> str:
        n = rng.randint(lo, hi)
        start = rng.randrange(0, max(1, len(prose) - n))
        return prose[start : start + n].strip()

    return {
        "preamble": "You are an expert coding assistant operating inside pi, a coding agent harness. " + text(500, 900),
        "tools": "Available tools:\n- read: Read file contents\n- bash: Execute bash commands\n"
        "- edit: Make surgical edits to files\n- write: Create or overwrite files\n\n" + text(200, 400),
        "rules": "Guidelines:\n- " + "\n- ".join(text(60, 160) for _ in range(6)),
        "docs": "Pi documentation (read only when the user asks about pi itself): " + text(300, 600),
        "cwd": f"Current date: 2026-04-30\nCurrent working directory: {cwd}",
    }


def system_message(sections: dict[str, str], timestamp: int) -> dict[str, Any]:
    """The first system message of a session, keys as pi's agent loop writes them."""
    return {"role": "system", "content": "", "sections": sections, "timestamp": timestamp, "toolsAdded": TOOLS}


def checkpoint(sections: dict[str, str], timestamp: int) -> dict[str, Any]:
    """A compaction's ``systemMessage``: the replayed prompt and tools, stamped with the
    compaction's own time (``getCurrentSystemMessage``'s key order)."""
    return {"role": "system", "content": "", "sections": sections, "toolsAdded": TOOLS, "timestamp": timestamp}


def usage_entry(
    i: str, parent: str | None, timestamp: str, provider: str, model: str, usage: dict[str, Any]
) -> dict[str, Any]:
    """A cache-warming record (``appendUsage("cache_warm", ...)``)."""
    return {
        "type": "usage",
        "id": i,
        "parentId": parent,
        "timestamp": timestamp,
        "kind": "cache_warm",
        "provider": provider,
        "model": model,
        "usage": usage,
    }


def context_edit(i: str, parent: str | None, timestamp: str, target: str, replacement: Any) -> dict[str, Any]:
    """``appendContextEdit``: ``replacement`` None (omit the target from the model's context) or
    ``{"content": ...}``."""
    return {
        "type": "context_edit",
        "id": i,
        "parentId": parent,
        "timestamp": timestamp,
        "targetId": target,
        "replacement": replacement,
    }
