"""Exporting a path through a session as the model sees it: Markdown or a standalone HTML page."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pitui.safe_text import safe_line, visible_controls
from pitui.store.js import MISSING, iso_ms
from pitui.store.reader import Session


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a rendered message: prose, code, or a folded note."""

    kind: str  # "text", "code", "thinking", "note"
    text: str
    language: str = ""


@dataclass(frozen=True, slots=True)
class RenderedMessage:
    title: str
    parts: tuple[Part, ...]
    timestamp: str = ""


def _content_parts(content: Any) -> Iterator[Part]:
    if isinstance(content, str):
        yield Part("text", content)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            yield Part("text", block["text"])
        elif kind == "thinking":
            thinking = block.get("thinking")
            yield Part("thinking", thinking if isinstance(thinking, str) and thinking else "(redacted thinking)")
        elif kind == "toolCall":
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False, indent=2)
            yield Part("code", f"{block.get('name', 'tool')}({arguments})", "json")
        elif kind == "image":
            data = block.get("data")
            size = len(data) * 3 // 4 if isinstance(data, str) else 0
            yield Part("note", f"[image {block.get('mimeType', '?')}, {size:,} bytes]")


def render_message(message: Any) -> RenderedMessage:
    """A context message as a title and parts, whatever its role."""
    if not isinstance(message, dict):
        return RenderedMessage("(unreadable message)", ())
    role = message.get("role", MISSING)
    stamp = message.get("timestamp")
    when = (iso_ms(stamp) or "") if isinstance(stamp, int | float) else ""
    if role == "user":
        return RenderedMessage("User", tuple(_content_parts(message.get("content"))), when)
    if role == "assistant":
        parts = list(_content_parts(message.get("content")))
        if message.get("stopReason") in ("error", "aborted"):
            reason = message.get("errorMessage") or message.get("stopReason")
            parts.append(Part("note", f"[{reason}]"))
        model = message.get("model")
        return RenderedMessage(f"Assistant ({model})" if model else "Assistant", tuple(parts), when)
    if role == "toolResult":
        output = "\n".join(p.text for p in _content_parts(message.get("content")) if p.kind == "text")
        title = f"Tool result: {message.get('toolName', 'tool')}" + (" (error)" if message.get("isError") else "")
        return RenderedMessage(title, (Part("code", output),), when)
    if role == "bashExecution":
        code = message.get("exitCode")
        title = f"Bash (exit {code})" if code is not None else "Bash"
        return RenderedMessage(title, (Part("code", f"$ {message.get('command', '')}\n{message.get('output', '')}",
                                            "console"),), when)
    if role == "compactionSummary":
        return RenderedMessage(f"Compaction summary ({message.get('tokensBefore', '?')} tokens before)",
                               (Part("text", str(message.get("summary", ""))),), when)
    if role == "branchSummary":
        return RenderedMessage("Branch summary", (Part("text", str(message.get("summary", ""))),), when)
    if role == "custom":
        return RenderedMessage(f"[{message.get('customType', 'custom')}]",
                               tuple(_content_parts(message.get("content"))), when)
    return RenderedMessage(f"[{role if role is not MISSING else 'unknown'}]",
                           tuple(_content_parts(message.get("content"))), when)


def _title(session: Session) -> str:
    return session.name or (session.header or {}).get("id", "session")


def export_markdown(session: Session, leaf_id: Any = MISSING) -> str:
    lines = [f"# {safe_line(str(_title(session)))}", ""]
    header = session.header or {}
    lines += [f"- cwd: `{safe_line(session.cwd)}`", f"- session: `{safe_line(str(header.get('id')))}`", ""]
    for rendered in map(render_message, session.context(leaf_id).messages):
        lines += [f"## {rendered.title}", ""]
        for part in rendered.parts:
            if part.kind == "code":
                fence = "````" if "```" in part.text else "```"
                lines += [f"{fence}{part.language}", part.text, fence, ""]
            elif part.kind == "thinking":
                lines += ["<details><summary>Thinking</summary>", "", part.text, "", "</details>", ""]
            else:
                lines += [part.text, ""]
    return visible_controls("\n".join(lines))


_STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-left:3px solid #ccc;padding:.2rem 1rem;margin:1rem 0}h2{font-size:1rem;margin:.3rem 0}
pre{background:#f5f5f5;padding:.6rem;overflow-x:auto;white-space:pre-wrap}.text{white-space:pre-wrap}
details{color:#666}.note{color:#a60}"""


def export_html(session: Session, leaf_id: Any = MISSING) -> str:
    esc = html.escape
    body = [f"<h1>{esc(str(_title(session)))}</h1>", f"<p><code>{esc(session.cwd)}</code></p>"]
    for rendered in map(render_message, session.context(leaf_id).messages):
        body.append(f"<section><h2>{esc(rendered.title)}</h2>")
        for part in rendered.parts:
            if part.kind == "code":
                body.append(f"<pre>{esc(part.text)}</pre>")
            elif part.kind == "thinking":
                body.append(f"<details><summary>Thinking</summary><div class=text>{esc(part.text)}</div></details>")
            elif part.kind == "note":
                body.append(f"<p class=note>{esc(part.text)}</p>")
            else:
                body.append(f"<div class=text>{esc(part.text)}</div>")
        body.append("</section>")
    page = ("<!doctype html>\n<html><head><meta charset=utf-8>"
            f"<title>{esc(str(_title(session)))}</title><style>{_STYLE}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return visible_controls(page)
