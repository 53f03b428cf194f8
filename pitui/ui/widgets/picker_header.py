"""The picker's header and footer: pi's three header lines (title, scope, name filter and sort
mode; two lines of key hints, or the delete question, or a status message) and the line under the
list (where the cursor is, files skipped, the keys that work everywhere). Plain data in, text out:
they are repainted, never laid out again, as the picker changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.timer import Timer
from textual.widget import Widget

from pitui.store.catalog.model import Scope
from pitui.store.query import SortMode
from pitui.ui.format import fit_middle

__all__ = [
    "SORT_LABELS",
    "Hint",
    "PickerFooter",
    "PickerHeader",
    "cut",
    "footer_keys",
    "picker_hints",
]

SORT_LABELS: dict[str, str] = {"threaded": "Threaded", "recent": "Recent", "relevance": "Fuzzy"}


Hint = tuple[str, str]  # (keys, what they do); keys "" for a plain note


def picker_hints(keys: Callable[[str], str], searching: bool, show_path: bool) -> list[Hint]:
    """pi's key hints of the picker, with the keys the user's keymap binds (``keys`` of a
    binding id): Escape clears a search, else quits."""
    return [
        (keys("picker.open"), "open"),
        (keys("picker.cancel").split("/")[0], "clear" if searching else "quit"),
        (keys("picker.scope"), "scope"),
        (keys("picker.sort"), "sort"),
        (keys("picker.named"), "named"),
        (keys("picker.path"), f"path ({'on' if show_path else 'off'})"),
        (keys("picker.rename"), "rename"),
        (keys("picker.delete"), "delete"),
        (keys("picker.resume"), "resume in pi"),
        (keys("picker.find_entries"), "find entries"),
        (keys("picker.usage"), "usage"),
    ]


def footer_keys(keys: Callable[[str], str]) -> str:
    """The keys that work everywhere, as the footer shows them."""
    return " · ".join(
        f"{keys(binding_id)} {what}"
        for binding_id, what in (("app.help", "keys"), ("app.commands", "commands"), ("app.quit", "quit"))
    )


class PickerHeader(Widget):
    """pi's three header lines: title with scope, name filter and sort mode on the right; then
    two lines of key hints, replaced by the delete question or a status message."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "picker-header--title",
        "picker-header--muted",
        "picker-header--accent",
        "picker-header--key",
        "picker-header--error",
    }

    DEFAULT_CSS = """
    PickerHeader {
        height: 3;
        & > .picker-header--title { text-style: bold; }
        & > .picker-header--muted { color: $text-muted; }
        & > .picker-header--accent { color: $text-accent; }
        & > .picker-header--key { color: $text-disabled; }
        & > .picker-header--error { color: $text-error; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.scope: Scope = "current"
        # Not "loading": that is Widget's reactive (it would cover the header with an indicator).
        self.listing: tuple[int, int] | bool = False  # False, True (no count yet) or (n, total)
        self.named = False
        self.sort: SortMode = "threaded"
        self.hints: list[Hint] = []  # flowed over the two lines, as many as fit
        self.question: tuple[str, tuple[str, str]] | None = None  # the delete question; the title and file
        self.status: tuple[str, bool] | None = None  # (message, is error)
        self._status_timer: Timer | None = None

    def flash(self, message: str, *, error: bool = False, seconds: float = 2) -> None:
        """Show ``message`` (text safe to show) in place of the key hints for ``seconds``."""
        self.status = (message, error)
        self.refresh()
        if self._status_timer is not None:
            self._status_timer.stop()
        self._status_timer = self.set_timer(seconds, self._clear_status)

    def _clear_status(self) -> None:
        self.status = None
        self.refresh()

    def _style(self, name: str) -> Style:
        style = self.get_component_rich_style(f"picker-header--{name}")
        return Style(color=style.color, bold=style.bold)

    def render(self) -> Text:
        width = self.size.width
        muted, accent = self._style("muted"), self._style("accent")
        title = Text(
            "Resume Session (Current Folder)" if self.scope == "current" else "Resume Session (All)",
            self._style("title"),
        )
        name = Text.assemble(("  Name: ", muted), ("Named" if self.named else "All", accent))
        sort = Text.assemble(("  Sort: ", muted), (SORT_LABELS[self.sort], accent))
        right = self._scope_text("Current Folder")
        # Narrow: "Name: All" (the default) goes first, then the scope's long words; the title
        # and the modes in force stay whole.
        if title.cell_len + 1 + right.cell_len + name.cell_len + sort.cell_len > width and not self.named:
            name = Text()
        if title.cell_len + 1 + right.cell_len + name.cell_len + sort.cell_len > width:
            right = self._scope_text("Current")
        right.append_text(name).append_text(sort)
        right.truncate(width)
        title.truncate(max(0, width - right.cell_len - 1))
        first = Text.assemble(title, " " * max(0, width - title.cell_len - right.cell_len), right)
        if self.question is not None:
            question, (title, file) = self.question
            # Together they say what goes: the title gets at least half the line, the file the
            # rest (its middle elided if it must be).
            file = fit_middle(file, max(width - min(cell_len(title), width // 2) - 3, 12))
            about = f"{cut(title, max(width - cell_len(file) - 3, 8))} · {file}"
            lines = [Text(cut(question, width), self._style("error")), Text(cut(about, width), muted)]
        elif self.status is not None:
            message, is_error = self.status
            lines = [Text(cut(message, width), self._style("error" if is_error else "accent")), Text()]
        else:
            lines = self._hint_lines(self.hints, width)
        return Text("\n").join([first, *lines])

    def _scope_text(self, current: str) -> Text:
        """pi's scope switch, ``◉ Current Folder | ○ All`` (or the listing's progress)."""
        muted, accent = self._style("muted"), self._style("accent")
        if self.listing is not False:
            count = f"{self.listing[0]}/{self.listing[1]}" if isinstance(self.listing, tuple) else "..."
            return Text.assemble((f"○ {current} | ", muted), (f"Loading {count}", accent))
        if self.scope == "current":
            return Text.assemble((f"◉ {current}", accent), (" | ○ All", muted))
        return Text.assemble((f"○ {current} | ", muted), ("◉ All", accent))

    def _hint_lines(self, hints: Sequence[Hint], width: int) -> list[Text]:
        """The hints flowed over two lines, whole: those that do not fit are left out (F1 lists
        every key)."""
        key, muted = self._style("key"), self._style("muted")
        lines = [Text(), Text()]
        row = 0
        for keys, what in hints:
            item = Text.assemble((keys, key), " ", (what, muted)) if keys else Text(what, muted)
            while row < 2:
                line = lines[row]
                gap = 3 if line.cell_len else 0
                if line.cell_len + gap + item.cell_len <= width:
                    if gap:
                        line.append(" · ", muted)
                    line.append_text(item)
                    break
                row += 1
        return lines


class PickerFooter(Widget):
    """The line under the list: where the cursor is (``(3/42)``) and how many files the
    listing skipped. Repainted, never laid out again, as the cursor moves."""

    DEFAULT_CSS = """
    PickerFooter {
        height: 1;
        color: $text-muted;
        & > .picker-footer--warning { color: $text-warning; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"picker-footer--warning"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.position = (0, 0)
        self.skipped = 0
        self.keys = ""  # the keys that work everywhere, on the right

    def show(self, position: tuple[int, int], skipped: int) -> None:
        """The highlighted row's place ``(n, of)`` and how many files the listing skipped."""
        if (position, skipped) != (self.position, self.skipped):
            self.position, self.skipped = position, skipped
            self.refresh()

    def render(self) -> Text:
        index, total = self.position
        text = Text(f"  ({index}/{total})")
        if self.skipped:
            warning = self.get_component_rich_style("picker-footer--warning")
            files = "file" if self.skipped == 1 else "files"
            text.append(f"  ·  {self.skipped} {files} skipped", Style(color=warning.color))
        width = self.size.width
        if self.keys and text.cell_len + 2 + cell_len(self.keys) + 1 <= width:
            text.append(" " * (width - text.cell_len - cell_len(self.keys) - 1))
            text.append(self.keys)
        return text


def cut(text: str, width: int) -> str:
    """``text`` in ``width`` cells, ending in ``…`` when cut."""
    if cell_len(text) <= width:
        return text
    out = Text(text)
    out.truncate(width, overflow="ellipsis")
    return out.plain
