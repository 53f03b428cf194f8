"""The picker's preview pane: what one session holds, from a :class:`SessionPreview`.

The pane never reads files: the picker computes the preview (``pitui.store.stats``) in a
worker and hands it over. Every string that comes from a session file goes through
:func:`safe_line` and into :class:`Content` as plain text, so escape sequences, control
characters and ``[markup]`` in it are shown as text.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from pitui.safe_text import safe_line
from pitui.ui.format import (
    fit_middle,
    format_age,
    format_cost,
    format_size,
    format_time,
    format_tokens,
    shorten_home_folder,
)

if TYPE_CHECKING:
    from pitui.store.stats import SessionPreview

__all__ = ["FactTable", "PreviewPane"]

MAX_LABELS = 8  # labels listed; the rest are counted
NOTHING_SELECTED = "No session selected."
FOLDER_GONE = "✗ no longer exists"

# Roles in conversation order (others follow, most frequent first), with names for people.
_ROLE_NAMES = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "tool results",
    "bashExecution": "bash",
    "custom": "custom",
}
_ROLE_ORDER = {role: index for index, role in enumerate(_ROLE_NAMES)}


# --------------------------------------------------------------------------------------------
# Widgets


Row = tuple[str, str, bool]  # (key, value, keep the end when cut: paths)


class FactTable(Widget):
    """Rows of ``key  value``, one line each; a value too wide is cut with ``…`` (at the start
    for paths, so the file name stays). Keys and values are plain text, never markup."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"fact-table--key"}
    DEFAULT_CSS = """
    FactTable {
        height: auto;
        text-wrap: nowrap;
        & > .fact-table--key { color: $text-muted; }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: list[Row] = []

    @property
    def rows(self) -> list[Row]:
        return list(self._rows)

    def set_rows(self, rows: Sequence[Row]) -> None:
        self._rows = list(rows)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._rows)

    def render(self) -> Content:
        if not self._rows:
            return Content("")
        key_width = max(cell_len(key) for key, _, _ in self._rows) + 2
        room = max(self.size.width - key_width, 1)
        key_style = self.get_visual_style("fact-table--key", partial=True)
        lines = []
        for key, value, keep_end in self._rows:
            shown = Content(fit_middle(value, room)) if keep_end else Content(value).truncate(room, ellipsis=True)
            lines.append(Content.assemble((key + " " * (key_width - cell_len(key)), key_style), shown))
        return Content("\n").join(lines)


class PreviewPane(VerticalScroll, can_focus=False):
    """The highlighted session at a glance: title, facts, first and last prompt, labels.

    ``home`` is the folder shown as ``~`` in paths (the user's home unless given).
    """

    DEFAULT_CSS = """
    PreviewPane {
        padding: 0 1;
        #preview-body { height: auto; }
        #preview-title {
            color: $primary;
            text-style: bold;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            margin-bottom: 1;
        }
        .preview--heading {
            color: $text-muted;
            text-style: bold;
            margin-top: 1;
        }
        .preview--prompt { max-height: 4; }
        #preview-skipped { color: $warning; margin-top: 1; }
        #preview-status { color: $text-muted; display: none; }
        &.-status #preview-body { display: none; }
        &.-status #preview-status { display: block; }
        &.-error #preview-status { color: $error; }
    }
    """

    def __init__(self, *, home: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.add_class("-status")  # until the first show()
        self.home = os.path.expanduser("~") if home is None else home
        self.preview: SessionPreview | None = None
        self._parent_title: str | None = None
        self._folder_gone = False

    def compose(self) -> ComposeResult:
        with Vertical(id="preview-body"):
            yield Static(id="preview-title", markup=False)
            yield FactTable(id="preview-facts")
            yield Static(id="preview-skipped", markup=False)
            yield Static("First prompt", classes="preview--heading", id="preview-first-heading", markup=False)
            yield Static(id="preview-first", classes="preview--prompt", markup=False)
            yield Static("Last prompt", classes="preview--heading", id="preview-last-heading", markup=False)
            yield Static(id="preview-last", classes="preview--prompt", markup=False)
            yield Static("Labels", classes="preview--heading", id="preview-labels-heading", markup=False)
            yield FactTable(id="preview-labels")
        yield Static(NOTHING_SELECTED, id="preview-status", markup=False)

    # -- public API -------------------------------------------------------------------------

    def show(
        self,
        preview: SessionPreview | None,
        *,
        now_ms: float,
        parent_title: str | None = None,
        folder_gone: bool = False,
    ) -> None:
        """Show ``preview`` (None: nothing is highlighted). ``now_ms`` is the time ages count from;
        ``parent_title`` names the session it was forked from, when that one is listed;
        ``folder_gone``: its folder no longer exists (said under the folder)."""
        self.preview = preview
        self._parent_title = parent_title
        self._folder_gone = folder_gone
        if preview is None:
            self._status(NOTHING_SELECTED, error=False)
            return
        self.remove_class("-status", "-error")
        self.query_one("#preview-title", Static).update(Content(self._title(preview)))
        self.query_one("#preview-facts", FactTable).set_rows(self._facts(preview, now_ms))

        skipped = self.query_one("#preview-skipped", Static)
        skipped.display = preview.skipped_lines > 0
        skipped.update(Content(self._skipped(preview)))

        first, last = preview.first_prompt, preview.last_prompt
        self.query_one("#preview-first", Static).update(Content(safe_line(first) if first else "(none)"))
        same = last is not None and last == first
        self.query_one("#preview-last-heading", Static).display = not same
        last_prompt = self.query_one("#preview-last", Static)
        last_prompt.display = not same
        last_prompt.update(Content(safe_line(last) if last else "(none)"))

        labels = preview.labels
        self.query_one("#preview-labels-heading", Static).display = bool(labels)
        table = self.query_one("#preview-labels", FactTable)
        table.display = bool(labels)
        rows = [(format_age(label.time, now_ms), safe_line(label.text), False) for label in labels[:MAX_LABELS]]
        if len(labels) > MAX_LABELS:
            rows.append(("", f"and {len(labels) - MAX_LABELS} more", False))
        table.set_rows(rows)
        self.scroll_home(animate=False)

    def show_error(self, message: str) -> None:
        """Say why there is no preview (the file vanished, cannot be read, is not a session)."""
        self.preview = None
        self._status(message, error=True)

    def show_loading(self) -> None:
        """Say that the preview is being read (a big file takes a moment)."""
        self.preview = None
        self._status("Reading the session…", error=False)

    # -- building -----------------------------------------------------------------------------

    def _status(self, message: str, *, error: bool) -> None:
        self.query_one("#preview-status", Static).update(Content(safe_line(message)))
        self.add_class("-status")
        self.set_class(error, "-error")

    @staticmethod
    def _title(preview: SessionPreview) -> str:
        return safe_line(preview.name or preview.first_prompt or "(no messages)")

    @staticmethod
    def _skipped(preview: SessionPreview) -> str:
        count = preview.skipped_lines
        if not count:
            return ""
        text = f"{count} unreadable {'line' if count == 1 else 'lines'} skipped"
        if preview.problems:
            first = preview.problems[0]
            text += f" (line {first.line}: {first.reason})"
        return safe_line(text)

    def _facts(self, preview: SessionPreview, now_ms: float) -> list[Row]:
        created, modified = preview.created, preview.modified
        copied = created is not None and math.isfinite(created) and created > modified
        rows: list[Row] = [("Created", format_time(created, now_ms), False)]
        if copied:  # a fork or clone: made now, of messages from before
            rows.append(("Last message", format_time(modified, now_ms), False))
        else:
            rows.append(("Modified", format_time(modified, now_ms), False))
        rows.append(("Folder", safe_line(shorten_home_folder(preview.cwd, self.home)) or "(none)", True))
        if self._folder_gone:
            rows.append(("", FOLDER_GONE, False))
        rows.append(("File", safe_line(os.path.basename(preview.path)), True))
        ordered = sorted(preview.roles.items(), key=lambda item: _ROLE_ORDER.get(item[0], len(_ROLE_ORDER)))
        roles = ", ".join(f"{count} {_ROLE_NAMES.get(role, role)}" for role, count in ordered)
        rows.append(("Messages", safe_line(f"{preview.messages} ({roles})" if roles else "0"), False))
        rows.append(("Entries", str(preview.entries), False))
        branches = str(preview.leaves)
        if preview.branch_points:
            points = "branch point" if preview.branch_points == 1 else "branch points"
            branches += f" ({preview.branch_points} {points})"
        rows.append(("Branches", branches, False))
        if preview.labels:
            rows.append(("Labels", str(len(preview.labels)), False))
        for index, model in enumerate(preview.models):
            rows.append(("Models" if index == 0 else "", safe_line(f"{model.name} ({model.messages})"), False))
        rows.append(("Tokens", _tokens(preview), False))
        rows.append(("Cost", format_cost(preview.cost), False))
        rows.append(("Size", format_size(preview.size), False))
        if preview.parent_session:
            parent = safe_line(shorten_home_folder(preview.parent_session, self.home))
            if self._parent_title:
                rows.append(("Forked from", safe_line(self._parent_title), False))
                rows.append(("", os.path.basename(parent), True))
            else:
                rows.append(("Forked from", parent, True))
        return rows


def _tokens(preview: SessionPreview) -> str:
    """``105k (↑12k ↓4.5k R89k W1.2k)``: pi's footer notation, zero parts left out."""
    tokens = preview.tokens
    parts = [
        f"{mark}{format_tokens(value)}"
        for mark, value in (
            ("↑", tokens.input),
            ("↓", tokens.output),
            ("R", tokens.cache_read),
            ("W", tokens.cache_write),
        )
        if value
    ]
    total = format_tokens(tokens.total)
    return f"{total} ({' '.join(parts)})" if parts else total
