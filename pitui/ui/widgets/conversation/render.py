"""What a conversation block shows: an item turned into renderables, by plain functions.

Nothing here needs a running App: a :class:`Look` carries what the view gives (its component
styles, whether the theme is dark, whether thinking is shown), and :func:`render_rows` renders
with any Rich console, so each kind of message can be rendered and tested alone.

Session text is untrusted: every string goes through :mod:`pitui.safe_text` and into
``rich.text.Text`` or a ``Markdown`` renderable that makes no hyperlinks; nothing is markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from msgspec import Struct
from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.styled import Styled
from rich.text import Text

from pitui.safe_text import safe_line, safe_lines
from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ImagePart,
    OtherMessage,
    Part,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    UserMessage,
    compact_json,
)
from pitui.store.pane import Marked, SystemBlock
from pitui.ui.format import arguments_text, format_size, format_usage, plural
from pitui.ui.widgets.conversation.blocks import (
    FOLD_LINES,
    GUTTER,
    INDENT,
    ORIGINAL,
    OUTPUT,
    PROMPT,
    REPLACED,
    TEXT_LINES,
    Block,
    Hotspot,
    Piece,
    line_count,
    part_open,
)

__all__ = ["Look", "estimate_height", "pieces", "render_rows"]


class Look(Struct, frozen=True):
    """What rendering takes from the view: its component styles by name, the theme, and
    whether thinking blocks are open unless the user folded them."""

    style: Callable[[str], Style]
    dark: bool = True
    show_thinking: bool = False

    def opened(self, block: Block, key: int) -> bool:
        return part_open(block, key, self.show_thinking)


def _lines(count: int) -> str:
    return f"{count} line" if count == 1 else f"{count} lines"


def render_rows(look: Look, block: Block, view_width: int, console: Console, base: Style) -> None:
    """Render ``block`` into rows of segments as wide as a view ``view_width`` cells wide less
    the gutter, with the space after it; its hot spots, foldable keys and real height too."""
    width = max(1, view_width - GUTTER - INDENT * block.depth)
    options = console.options.update(width=width, height=None, highlight=False, markup=False)
    rows: list[list[Segment]] = []
    hotspots: list[Hotspot] = []
    foldable: list[int] = []
    for renderable, key, header in pieces(look, block, width):
        start = len(rows)
        rows.extend(console.render_lines(renderable, options, style=base, pad=True))
        if key is not None:
            hotspots.append(Hotspot(start, len(rows), key, header))
            if key not in foldable:
                foldable.append(key)
    if block.depth:
        guide = Segment("│ " * block.depth, base + look.style("conversation--guide"))
        rows = [[guide, *row] for row in rows]
    rows.append([Segment(" " * max(0, view_width - GUTTER), base)])  # the space between messages
    block.rows = rows
    block.hotspots = hotspots
    block.foldable = tuple(foldable)
    block.height = len(rows)
    block.measured = True


def pieces(look: Look, block: Block, width: int) -> Iterable[Piece]:
    item = block.item
    style = look.style
    if isinstance(item, Marked):
        yield from _marked(look, block, item, width)
    elif isinstance(item, SystemBlock):
        yield from _system(look, block, item)
    elif isinstance(item, UserMessage):
        yield _title(look, "User", "conversation--user")
        yield from _content(look, block, item.parts, width, fold=False)
    elif isinstance(item, AssistantMessage):
        yield _title(look, "Assistant", "conversation--assistant")
        yield from _assistant(look, block, item, width)
    elif isinstance(item, ToolResult):
        yield from _tool_result(look, block, item)
    elif isinstance(item, BashExecution):
        yield from _bash(look, block, item)
    elif isinstance(item, CustomMessage):
        hidden = "" if item.display else " · not shown by pi"
        yield _title(look, f"◆ {safe_line(item.custom_type) or 'custom'}", "conversation--custom", hidden)
        yield from _content(look, block, item.parts, width, fold=True)
    elif isinstance(item, BranchSummary):
        yield _title(look, "⎇ Branch summary", "conversation--summary")
        yield Piece(_markdown(look, safe_lines(item.summary)))
        if item.usage is not None:
            yield Piece(Text(format_usage(item.usage), style("conversation--meta")))
    elif isinstance(item, CompactionSummary):
        yield from _compaction(look, block, item)
    elif isinstance(item, OtherMessage):
        yield _title(look, safe_line(item.role), "conversation--custom")
        yield from _content(look, block, item.parts, width, fold=True)


_DIM = Style(dim=True)


def _marked(look: Look, block: Block, item: Marked, width: int) -> Iterable[Piece]:
    """A message the model no longer sees as it is: the mark, then the message (dimmed when
    omitted); a replacement has the original one key away."""
    mark = "⊘ " if item.omitted else "✎ "
    yield Piece(Text(mark + safe_line(item.note), look.style("conversation--meta") + Style(italic=True)))
    inner = Block(item.item, block.key, block.folds, block.depth)
    for piece in pieces(look, inner, width):
        yield Piece(Styled(piece.renderable, _DIM), piece.key, piece.header) if item.omitted else piece
    if item.original is not None:
        fold = look.style("conversation--fold")
        if not look.opened(block, ORIGINAL):
            yield Piece(Text("▸ the original message", fold), ORIGINAL, True)
            return
        yield Piece(Text("▾ the original message", fold), ORIGINAL, True)
        original = Block(item.original, block.key, {}, block.depth)
        for piece in pieces(look, original, width):
            yield Piece(Styled(piece.renderable, _DIM))


def _system(look: Look, block: Block, item: SystemBlock) -> Iterable[Piece]:
    """A system prompt folded to its sections, tools and size, or one line of changes."""
    meta = look.style("conversation--meta")
    if not item.whole:
        title = Text("⚙ System prompt changed ", look.style("conversation--custom"))
        title.append(safe_line("  ".join(item.changes)) or "(no change)", meta)
        yield Piece(title)
    else:
        name = "⚙ System prompt" + (" · compaction checkpoint" if item.checkpoint else "")
        note = f" · {plural(len(item.sections), 'section', 'sections')} · {plural(len(item.tools), 'tool', 'tools')}"
        yield _title(look, name, "conversation--custom", f"{note} · {item.size:,} characters")
        if item.sections:
            yield Piece(Text(safe_line("sections: " + ", ".join(item.sections)), meta))
        if item.tools:
            yield Piece(Text(safe_line("tools: " + ", ".join(item.tools)), meta))
        if item.text:
            fold = look.style("conversation--fold")
            if look.opened(block, PROMPT):
                yield Piece(Text("▾ the whole prompt", fold), PROMPT, True)
                yield Piece(Text(safe_lines(item.text), look.style("conversation--output")), PROMPT, False)
            else:
                yield Piece(Text(f"▸ the whole prompt · {_lines(line_count(item.text))}", fold), PROMPT, True)
    if item.problem:
        yield Piece(Text(safe_line(f"pi cannot replay it: {item.problem}"), look.style("conversation--error")))


def _title(look: Look, title: str, style: str, note: str = "") -> Piece:
    text = Text(title, look.style(style))
    if note:
        text.append(note, look.style("conversation--meta"))
    return Piece(text)


def _assistant(look: Look, block: Block, item: AssistantMessage, width: int) -> Iterable[Piece]:
    style = look.style
    for index, part in enumerate(item.parts):
        if isinstance(part, ThinkingPart):
            lines = line_count(part.text)
            if part.redacted or not part.text:
                yield Piece(Text("Thinking (redacted)", style("conversation--thinking")))
            elif look.opened(block, index):
                yield Piece(Text(f"▾ Thinking · {_lines(lines)}", style("conversation--thinking")), index, True)
                yield Piece(Text(safe_lines(part.text), style("conversation--thinking")), index, False)
            else:
                yield Piece(Text(f"▸ Thinking · {_lines(lines)}", style("conversation--thinking")), index, True)
        elif isinstance(part, TextPart):
            yield from _folded(
                look,
                safe_lines(part.text),
                "conversation--output",
                index,
                look.opened(block, index),
                limit=TEXT_LINES,
                markdown=True,
            )
        elif isinstance(part, ToolCallPart):
            yield from _tool_call(look, block, index, part, width)
        elif isinstance(part, ImagePart):
            yield _image(look, part)
    if item.stop_reason in ("error", "aborted"):
        message = item.error_message or ("aborted" if item.stop_reason == "aborted" else "error")
        yield Piece(Text(f"✗ {safe_lines(message)}", style("conversation--error")))
    elif item.stop_reason == "length":
        yield Piece(Text("stopped at the output token limit", style("conversation--meta")))
    meta = " ".join(filter(None, (safe_line(item.model), f"({safe_line(item.provider)})" if item.provider else "")))
    if item.usage is not None:
        meta = f"{meta} · {format_usage(item.usage)}" if meta else format_usage(item.usage)
    if meta:
        yield Piece(Text(meta, style("conversation--meta")))


def _tool_call(look: Look, block: Block, index: int, part: ToolCallPart, width: int) -> Iterable[Piece]:
    tool = look.style("conversation--tool")
    name = safe_line(part.name) or "tool"
    compact = safe_line(compact_json(part.arguments))
    if len(name) + 3 + len(compact) <= width and "\\n" not in compact:
        text = Text(f"⚙ {name} ", tool)
        text.append(compact, look.style("conversation--meta"))
        yield Piece(text)
        return
    shown = safe_lines(arguments_text(part.arguments))
    yield Piece(Text(f"⚙ {name}", tool), index if line_count(shown) > FOLD_LINES else None, True)
    yield from _folded(look, shown, "conversation--meta", index, look.opened(block, index))


def _tool_result(look: Look, block: Block, item: ToolResult) -> Iterable[Piece]:
    output = safe_lines(item.output.rstrip("\n"))
    lines = line_count(output)
    key = OUTPUT if lines > FOLD_LINES else None
    name = safe_line(item.tool_name) or "tool"
    if item.is_error:
        title = Text(f"✗ {name} failed", look.style("conversation--error"))
    else:
        title = Text(f"↳ {name}", look.style("conversation--tool-result"))
    if lines:
        title.append(f" · {_lines(lines)}", look.style("conversation--meta"))
    yield Piece(title, key, True)
    if output:
        yield from _folded(
            look,
            output,
            "conversation--error" if item.is_error else "conversation--output",
            OUTPUT,
            look.opened(block, OUTPUT),
        )
    for part in item.parts:
        if isinstance(part, ImagePart):
            yield _image(look, part)
    if item.usage is not None:
        yield Piece(Text(format_usage(item.usage), look.style("conversation--meta")))


def _bash(look: Look, block: Block, item: BashExecution) -> Iterable[Piece]:
    output = safe_lines(item.output.rstrip("\n"))
    key = OUTPUT if line_count(output) > FOLD_LINES else None
    title = Text(f"$ {safe_lines(item.command)}", look.style("conversation--bash"))
    yield Piece(title, key, True)
    if output:
        yield from _folded(look, output, "conversation--output", OUTPUT, look.opened(block, OUTPUT))
    meta = Text()
    if item.exit_code is not None:
        meta.append(
            f"exit {item.exit_code}", look.style("conversation--error" if item.exit_code else "conversation--meta")
        )
    notes = [
        note
        for flag, note in (
            (item.cancelled, "cancelled"),
            (item.truncated, "output truncated"),
            (item.excluded, "not sent to the model"),
        )
        if flag
    ]
    if item.full_output_path:
        notes.append(f"full output: {safe_line(item.full_output_path)}")
    for note in notes:
        meta.append(" · " if meta else "", look.style("conversation--meta"))
        meta.append(note, look.style("conversation--error" if note == "cancelled" else "conversation--meta"))
    if meta:
        yield Piece(meta)


def _compaction(look: Look, block: Block, item: CompactionSummary) -> Iterable[Piece]:
    count = item.replaced_count
    title = f"⊟ Compacted {count} entr{'y' if count == 1 else 'ies'}"
    note = f" · {item.tokens_before:,} tokens before" if item.tokens_before is not None else ""
    yield _title(look, title, "conversation--summary", note)
    yield Piece(_markdown(look, safe_lines(item.summary)))
    if item.usage is not None:
        yield Piece(Text(format_usage(item.usage), look.style("conversation--meta")))
    if count:
        fold = look.style("conversation--fold")
        if not look.opened(block, REPLACED):
            yield Piece(Text(f"▸ show the {count} replaced entries", fold), REPLACED, True)
        elif block.pending:
            yield Piece(Text("▾ replaced entries: loading…", fold), REPLACED, True)
        elif block.children is not None and not block.children:
            yield Piece(Text("▾ replaced entries: none to show", fold), REPLACED, True)
        else:
            yield Piece(Text(f"▾ the {count} replaced entries", fold), REPLACED, True)


def _content(look: Look, block: Block, parts: Sequence[Part], width: int, *, fold: bool) -> Iterable[Piece]:
    """Text and images of a user, custom or unknown message (long text folded if ``fold``)."""
    for index, part in enumerate(parts):
        if isinstance(part, TextPart):
            text = safe_lines(part.text)
            yield from _folded(
                look,
                text,
                "conversation--output",
                index,
                look.opened(block, index),
                limit=FOLD_LINES if fold else TEXT_LINES,
            )
        elif isinstance(part, ImagePart):
            yield _image(look, part)
        elif isinstance(part, ThinkingPart):
            yield Piece(Text(safe_lines(part.text), look.style("conversation--thinking")))
        elif isinstance(part, ToolCallPart):
            yield from _tool_call(look, block, index, part, width)


def _folded(
    look: Look, text: str, style: str, key: int | None, opened: bool, *, limit: int = FOLD_LINES, markdown: bool = False
) -> Iterable[Piece]:
    """``text`` whole, or its first ``limit`` lines and how many more there are. Folded to a
    few lines, long lines are cut rather than wrapped, so the fold stays that short."""
    lines = line_count(text)
    if opened or lines <= limit:
        whole = _markdown(look, text) if markdown else Text(text, look.style(style))
        yield Piece(whole, key if lines > limit else None, False)
        return
    head = "\n".join(text.split("\n", limit)[:limit])
    if markdown:
        yield Piece(_markdown(look, head), key, False)
    else:
        yield Piece(Text(head, look.style(style), no_wrap=limit == FOLD_LINES, overflow="ellipsis"), key, False)
    more = lines - limit
    yield Piece(Text(f"… {more} more {'line' if more == 1 else 'lines'}", look.style("conversation--fold")), key, False)


def _image(look: Look, part: ImagePart) -> Piece:
    mime = safe_line(part.mime_type) or "unknown type"
    return Piece(Text(f"[image: {mime}, {format_size(part.size)}]", look.style("conversation--image")))


def _markdown(look: Look, text: str) -> RenderableType:
    """Markdown of text already made safe; links are shown as text, never as hyperlinks."""
    theme = "ansi_dark" if look.dark else "ansi_light"
    return Markdown(text, code_theme=theme, hyperlinks=False)


def estimate_height(block: Block, width: int, show_thinking: bool) -> int:
    """A cheap guess of a block's height: its lines, wrapped at ``width``, as it is folded."""
    width = max(1, width - GUTTER - INDENT * block.depth)

    def rows(text: str) -> int:
        return line_count(text) + len(text) // width if text else 0

    def folded(text: str, key: int, limit: int = FOLD_LINES) -> int:
        if line_count(text) > limit and not part_open(block, key, show_thinking):
            return limit + 1
        return rows(text)

    item = block.item
    if isinstance(item, Marked):
        inner = estimate_height(Block(item.item, block.key, block.folds, block.depth), width + GUTTER, show_thinking)
        return inner + 1 + (item.original is not None)
    if isinstance(item, SystemBlock):
        whole = rows(item.text) if part_open(block, PROMPT, show_thinking) else 0
        return 2 + (3 + whole if item.whole else 0)
    height = 2  # a title and the space after
    if isinstance(item, AssistantMessage):
        for index, part in enumerate(item.parts):
            if isinstance(part, ThinkingPart):
                height += 1 + (rows(part.text) if part_open(block, index, show_thinking) else 0)
            elif isinstance(part, TextPart):
                height += folded(part.text, index, TEXT_LINES) + 1
            elif isinstance(part, ToolCallPart):
                arguments = part.arguments
                height += 1 + min(FOLD_LINES + 1, len(arguments) if isinstance(arguments, dict) else 1)
            else:
                height += 1
        height += 1  # the meta line
    elif isinstance(item, ToolResult | BashExecution):
        height += folded(item.output, OUTPUT) + 1
    elif isinstance(item, BranchSummary | CompactionSummary):
        height += rows(item.summary) + 2
    else:
        limit = TEXT_LINES if isinstance(item, UserMessage) else FOLD_LINES
        for index, part in enumerate(getattr(item, "parts", ())):
            height += folded(part.text, index, limit) if isinstance(part, TextPart) else 1
    return height
