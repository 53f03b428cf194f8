"""Exporting a path through a session as the model sees it: Markdown or a standalone HTML page.

The export is made from the items the session view's conversation pane shows
(:func:`pitui.store.conversation.context_items`), so both show the same messages."""

from __future__ import annotations

import html
import json
from typing import Any

from pitui.safe_text import safe_line, visible_controls
from pitui.store import conversation as conv
from pitui.store.js import MISSING
from pitui.store.reader import Session

# A rendered message is a title and its pieces: (kind, text, language), kind one of "text",
# "code", "thinking" and "note".
_Piece = tuple[str, str, str]


def _content_pieces(parts: tuple[conv.Part, ...]) -> list[_Piece]:
    pieces: list[_Piece] = []
    for part in parts:
        if isinstance(part, conv.TextPart):
            pieces.append(("text", part.text, ""))
        elif isinstance(part, conv.ThinkingPart):
            pieces.append(("thinking", part.text or "(redacted thinking)", ""))
        elif isinstance(part, conv.ToolCallPart):
            arguments = json.dumps(part.arguments, ensure_ascii=False, indent=2)
            pieces.append(("code", f"{part.name or 'tool'}({arguments})", "json"))
        elif isinstance(part, conv.ImagePart):
            pieces.append(("note", f"[image {part.mime_type or '?'}, {part.size:,} bytes]", ""))
    return pieces


def render_item(item: conv.Item) -> tuple[str, list[_Piece]]:
    """A context item (:mod:`pitui.store.conversation`) as a title and pieces, whatever its kind."""
    if isinstance(item, conv.UserMessage):
        return "User", _content_pieces(item.parts)
    if isinstance(item, conv.AssistantMessage):
        pieces = _content_pieces(item.parts)
        if item.stop_reason in ("error", "aborted"):
            pieces.append(("note", f"[{item.error_message or item.stop_reason}]", ""))
        return (f"Assistant ({item.model})" if item.model else "Assistant"), pieces
    if isinstance(item, conv.ToolResult):
        title = f"Tool result: {item.tool_name or 'tool'}" + (" (error)" if item.is_error else "")
        return title, [("code", item.output, "")]
    if isinstance(item, conv.BashExecution):
        title = f"Bash (exit {item.exit_code})" if item.exit_code is not None else "Bash"
        return title, [("code", f"$ {item.command}\n{item.output}", "console")]
    if isinstance(item, conv.CompactionSummary):
        tokens = "?" if item.tokens_before is None else item.tokens_before
        return f"Compaction summary ({tokens} tokens before)", [("text", item.summary, "")]
    if isinstance(item, conv.BranchSummary):
        return "Branch summary", [("text", item.summary, "")]
    if isinstance(item, conv.CustomMessage):
        return f"[{item.custom_type or 'custom'}]", _content_pieces(item.parts)
    return f"[{item.role}]", _content_pieces(item.parts)


def _title(session: Session) -> str:
    return session.name or (session.header or {}).get("id", "session")


def export_markdown(session: Session, leaf_id: Any = MISSING) -> str:
    lines = [f"# {safe_line(str(_title(session)))}", ""]
    header = session.header or {}
    lines += [f"- cwd: `{safe_line(session.cwd)}`", f"- session: `{safe_line(str(header.get('id')))}`", ""]
    for title, pieces in map(render_item, conv.context_items(session, leaf_id)):
        lines += [f"## {title}", ""]
        for kind, text, language in pieces:
            if kind == "code":
                fence = "````" if "```" in text else "```"
                lines += [f"{fence}{language}", text, fence, ""]
            elif kind == "thinking":
                lines += ["<details><summary>Thinking</summary>", "", text, "", "</details>", ""]
            else:
                lines += [text, ""]
    return visible_controls("\n".join(lines))


_STYLE = """body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
section{border-left:3px solid #ccc;padding:.2rem 1rem;margin:1rem 0}h2{font-size:1rem;margin:.3rem 0}
pre{background:#f5f5f5;padding:.6rem;overflow-x:auto;white-space:pre-wrap}.text{white-space:pre-wrap}
details{color:#666}.note{color:#a60}"""


def export_html(session: Session, leaf_id: Any = MISSING) -> str:
    esc = html.escape
    body = [f"<h1>{esc(str(_title(session)))}</h1>", f"<p><code>{esc(session.cwd)}</code></p>"]
    for title, pieces in map(render_item, conv.context_items(session, leaf_id)):
        body.append(f"<section><h2>{esc(title)}</h2>")
        for kind, text, _ in pieces:
            if kind == "code":
                body.append(f"<pre>{esc(text)}</pre>")
            elif kind == "thinking":
                body.append(f"<details><summary>Thinking</summary><div class=text>{esc(text)}</div></details>")
            elif kind == "note":
                body.append(f"<p class=note>{esc(text)}</p>")
            else:
                body.append(f"<div class=text>{esc(text)}</div>")
        body.append("</section>")
    page = (
        "<!doctype html>\n<html><head><meta charset=utf-8>"
        f"<title>{esc(str(_title(session)))}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    return visible_controls(page)
