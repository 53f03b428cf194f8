"""The app's dialogs: branch summary question, summary editor, summarizer progress, the label
and rename prompts, and confirmation. Each is a modal screen that returns the user's answer
(``None``: cancelled) and never writes anything itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import ClassVar, Generic, TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from pitui.safe_text import safe, safe_line
from pitui.store.summarize import SummarizerCancelled, SummarizerError, run_summarizer
from pitui.ui.keys import OrderedKeys
from pitui.ui.widgets.fields import OrderedInput, OrderedOptionList
from pitui.ui.widgets.text_area_field import OrderedTextArea
from pitui.ui.workers import work

__all__ = [
    "DIALOGS",
    "BranchDialog",
    "ChoiceDialog",
    "ConfirmDialog",
    "InstructionsEditor",
    "LabelDialog",
    "NoteEditor",
    "RenameScreen",
    "SummarizingDialog",
    "SummaryEditor",
    "TextPromptDialog",
]

BRANCH_PLAIN, BRANCH_WRITE, BRANCH_COMMAND = "plain", "write", "command"
BRANCH_PI, BRANCH_PI_FOCUS = "pi", "pi-focus"  # pi's "Summarize" and "Summarize with custom prompt"
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


T = TypeVar("T")


class ChoiceDialog(OrderedKeys, ModalScreen[T | None], Generic[T]):
    """A question answered by one of its options (Enter), or by none (Escape: None). The
    subclass composes an ``OptionList`` and binds ``move(±1)`` and ``cancel``; the answer is
    :meth:`answer` of the chosen option's id."""

    def answer(self, option_id: str | None) -> T | None:
        return option_id  # type: ignore[return-value]

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.answer(event.option.id))

    def action_move(self, step: int) -> None:
        choices = self.query_one(OptionList)
        if step > 0:
            choices.action_cursor_down()
        else:
            choices.action_cursor_up()

    def action_cancel(self) -> None:
        self.dismiss(None)


class BranchDialog(ChoiceDialog[str]):
    """pi's ``Summarize branch?``: no summary, a summary the user writes, or one from the
    configured summarizer command; without one, pi's "Summarize" and "Summarize with custom
    prompt", run through the pi installed (``pi``: True), else the command's choice is shown
    disabled, with how to set one."""

    BINDING_GROUP_TITLE = "Summarize branch? question"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+c", "cancel", "Cancel", id="branch.cancel"),
        Binding("j", "move(1)", "Down", show=False, id="branch.down"),
        Binding("k", "move(-1)", "Up", show=False, id="branch.up"),
    ]

    def __init__(self, destination: str, left_behind: str, summarizer: str | None, pi: bool = False) -> None:
        super().__init__()
        self._destination = destination
        self._left_behind = left_behind
        self._summarizer = summarizer
        self._pi = pi

    def compose(self) -> ComposeResult:
        command: list[Option] = [
            Option(f"Summarize with {safe_line(self._summarizer)}", id=BRANCH_COMMAND)
            if self._summarizer
            else Option(
                Text("Summarize with a command (set summarizer_command in config.toml)", style="dim"),
                id=BRANCH_COMMAND,
                disabled=True,
            )
        ]
        if self._pi and not self._summarizer:
            command = [
                Option("Summarize (pi, with your default model)", id=BRANCH_PI),
                Option("Summarize with custom prompt (pi)", id=BRANCH_PI_FOCUS),
            ]
        with Vertical(id="branch-box", classes="dialog-box"):
            yield Static("Summarize branch?", classes="dialog-title", markup=False)
            about = Text()
            about.append("Continue from ", style="dim")
            about.append(safe_line(self._destination))
            about.append(f"\nLeaving behind {self._left_behind}", style="dim")
            yield Static(about, id="branch-about")
            yield OrderedOptionList(
                Option("No summary", id=BRANCH_PLAIN),
                Option("Write a summary (starts from a digest of the branch)", id=BRANCH_WRITE),
                *command,
                id="branch-choices",
            )
            yield Static("↑↓ navigate · enter select · escape cancel", classes="dialog-hint", markup=False)


class SummaryEditor(OrderedKeys, ModalScreen[str | None]):
    """A branch summary to write, prefilled with a digest of the branch. Ctrl+S saves;
    Escape goes back to the question (pi's custom-prompt editor does the same)."""

    BINDING_GROUP_TITLE = "Summary editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="summary.save"),
        Binding("escape", "cancel", "Back", id="summary.cancel"),
    ]

    TITLE: ClassVar[str] = "Branch summary"
    ABOUT: ClassVar[str] = (
        "What the model should know about the branch you are leaving. It starts from a "
        "digest of that branch, made without a model."
    )
    HINT: ClassVar[str] = "ctrl+s save · escape back"
    ALLOW_EMPTY: ClassVar[bool] = False
    EMPTY: ClassVar[str] = "An empty summary is not written: write one, or press escape."

    def __init__(self, digest: str) -> None:
        super().__init__()
        self._digest = digest

    def compose(self) -> ComposeResult:
        with Vertical(id="summary-box", classes="dialog-box"):
            yield Static(self.TITLE, classes="dialog-title", markup=False)
            yield Static(self.about, classes="dialog-hint", markup=False)
            yield OrderedTextArea(
                safe(self._digest, multiline=True),
                id="summary-text",
                soft_wrap=True,
                show_line_numbers=False,
                tab_behavior="indent",
            )
            yield Static(self.HINT, classes="dialog-hint", markup=False)

    @property
    def about(self) -> str:
        """The line under the title (the class's ``ABOUT``)."""
        return self.ABOUT

    def on_mount(self) -> None:
        area = self.query_one(OrderedTextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_save(self) -> None:
        text = self.query_one(OrderedTextArea).text.strip()
        if not text and not self.ALLOW_EMPTY:
            self.notify(self.EMPTY, severity="warning", markup=False)
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NoteEditor(SummaryEditor):
    """The note the model sees instead of an entry's content, prefilled with what it replaces.
    Ctrl+S writes it; Escape writes nothing."""

    BINDING_GROUP_TITLE = "Note editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="note.save"),
        Binding("escape", "cancel", "Cancel", id="note.cancel"),
    ]

    TITLE = "Replace in the model's context"
    HINT = "ctrl+s write · escape cancel"
    EMPTY = "An empty note is not written: write one, or press escape."

    def __init__(self, note: str, about: str) -> None:
        super().__init__(note)
        self._about = about

    @property
    def about(self) -> str:
        return f"{self._about}\nThe model sees this note instead from now on; the entry itself stays in the file."


class InstructionsEditor(SummaryEditor):
    """pi's ``Custom summarization instructions`` editor: what pi's summary should focus on
    (added to the instructions; empty: none). Ctrl+S runs pi; Escape goes back to the question."""

    BINDING_GROUP_TITLE = "Custom summarization instructions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Summarize", id="instructions.save"),
        Binding("escape", "cancel", "Back", id="instructions.cancel"),
    ]
    TITLE = "Custom summarization instructions"
    ABOUT = "What the summary should focus on, added to pitui's summary instructions for pi."
    HINT = "ctrl+s summarize · escape back"
    ALLOW_EMPTY = True

    def __init__(self) -> None:
        super().__init__("")


class SummarizingDialog(OrderedKeys, ModalScreen["str | SummarizerError | None"]):
    """Runs the summarizer command in a thread, with a spinner and the time taken. Returns the
    summary, the error that stopped it, or ``None`` when the user cancelled."""

    BINDING_GROUP_TITLE = "Summarizing"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+c", "cancel", "Cancel", id="summarizing.cancel"),
    ]

    def __init__(
        self, argv: Sequence[str], transcript: str, timeout: float, cwd: str | None, label: str | None = None
    ) -> None:
        super().__init__()
        self._argv = tuple(argv)
        self._label = label or " ".join(self._argv)  # what is shown running
        self._transcript = transcript
        self._timeout = timeout
        self._cwd = cwd
        self._cancel = threading.Event()
        self._started = time.monotonic()
        self._frame = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="summarizing-box", classes="dialog-box"):
            yield Static("Summarizing branch", classes="dialog-title", markup=False)
            yield Static(id="summarizing-progress")
            yield Static("escape cancel", classes="dialog-hint", markup=False)

    def on_mount(self) -> None:
        self._tick()
        self.set_interval(0.1, self._tick)
        self._run()

    def _tick(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        elapsed = time.monotonic() - self._started
        text = Text()
        text.append(SPINNER[self._frame] + " ", style="bold")
        text.append(safe_line(self._label))
        text.append(f"  {elapsed:.0f} s of at most {self._timeout:g} s", style="dim")
        self.query_one("#summarizing-progress", Static).update(text)

    @work(thread=True, exit_on_error=False)
    def _run(self) -> None:
        try:
            outcome: str | SummarizerError = run_summarizer(
                self._argv, self._transcript, timeout=self._timeout, cwd=self._cwd, cancelled=self._cancel.is_set
            )
        except SummarizerCancelled:
            return
        except SummarizerError as error:
            outcome = error
        self.app.call_from_thread(self._finish, outcome)

    def _finish(self, outcome: str | SummarizerError) -> None:
        if not self._cancel.is_set() and self.is_attached:
            self.dismiss(outcome)

    def action_cancel(self) -> None:
        self._cancel.set()
        self.dismiss(None)


class TextPromptDialog(OrderedKeys, ModalScreen[str | None]):
    """A one-line text to type, prefilled: Enter answers with it (trimmed), Escape cancels.

    A subclass names its prompt, the prefix of its widgets' ids (``<prefix>-box``,
    ``-title``, ``-entry``, ``-input``, ``-hint``), whether an empty answer counts, and binds
    ``cancel`` under its own binding id. ``about`` is a dim line under the prompt; ``beside``
    is a region of the screen to open next to (under it, or over it when there is no room).
    """

    PROMPT: ClassVar[str] = ""
    PREFIX: ClassVar[str] = "prompt"
    ALLOW_EMPTY: ClassVar[bool] = True  # an empty answer is one (clear a label), else Enter does nothing
    DIALOG_CLASSES: ClassVar[bool] = True  # styled as the session view's dialogs (.dialog-box ...)

    def __init__(self, value: str, hint: str, *, about: str | None = None, beside: Region | None = None) -> None:
        super().__init__()
        self._value = value
        self._hint = hint
        self._about = about
        self._beside = beside

    def _dialog_class(self, name: str) -> str | None:
        return f"dialog-{name}" if self.DIALOG_CLASSES else None

    def compose(self) -> ComposeResult:
        prefix = self.PREFIX
        with Vertical(id=f"{prefix}-box", classes=self._dialog_class("box")):
            yield Static(self.PROMPT, id=f"{prefix}-title", classes=self._dialog_class("title"), markup=False)
            if self._about is not None:
                yield Static(
                    Text(safe_line(self._about), style="dim", no_wrap=True, overflow="ellipsis"), id=f"{prefix}-entry"
                )
            yield OrderedInput(safe_line(self._value), id=f"{prefix}-input", select_on_focus=False)
            yield Static(self._hint, id=f"{prefix}-hint", classes=self._dialog_class("hint"), markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self._beside is not None:
            self.call_after_refresh(self._place)

    def _place(self) -> None:
        """Next to the region given (a label is edited next to its entry's row, as pi edits it
        in its row)."""
        box = self.query_one(f"#{self.PREFIX}-box")
        row, screen = self._beside, self.size
        assert row is not None
        height = box.outer_size.height
        top = row.bottom if row.bottom + height <= screen.height else max(0, row.y - height)
        left = min(row.x, max(0, screen.width - box.outer_size.width))
        self.styles.align = ("left", "top")
        box.styles.offset = (left, top)

    @on(Input.Submitted)
    def _save(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text or self.ALLOW_EMPTY:
            self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LabelDialog(TextPromptDialog):
    """pi's label editor: ``Label (empty to remove):`` prefilled with the current label, the
    entry under it. Enter saves (empty clears), Escape cancels."""

    BINDING_GROUP_TITLE = "Label editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+c", "cancel", "Cancel", id="label.cancel"),
    ]
    PROMPT = "Label (empty to remove):"
    PREFIX = "label"

    def __init__(self, label: str, entry_text: str, beside: Region | None = None) -> None:
        super().__init__(label, "enter save · escape cancel", about=entry_text, beside=beside)


class RenameScreen(TextPromptDialog):
    """pi's rename panel: an input prefilled with the current name. Enter saves (an empty
    name does nothing), Escape cancels."""

    BINDING_GROUP_TITLE = "Rename"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,ctrl+c", "cancel", "Cancel the rename", id="rename.cancel"),
    ]
    PROMPT = "Rename Session"
    PREFIX = "rename"
    ALLOW_EMPTY = False
    DIALOG_CLASSES = False

    def __init__(self, name: str, hint: str) -> None:
        super().__init__(name, hint)


class ConfirmDialog(OrderedKeys, ModalScreen[bool]):
    """A yes/no question: Enter (or y) confirms, Escape (or n) cancels."""

    BINDING_GROUP_TITLE = "Questions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,y", "answer(True)", "Confirm", id="confirm.yes"),
        Binding("escape,ctrl+c,n", "answer(False)", "Cancel", id="confirm.no"),
    ]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self._title = title
        self._question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box", classes="dialog-box"):
            yield Static(self._title, classes="dialog-title", markup=False)
            yield Static(safe(self._question, multiline=True), markup=False)
            yield Static("enter confirm · escape cancel", classes="dialog-hint", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


DIALOGS = (RenameScreen, BranchDialog, SummaryEditor, InstructionsEditor, SummarizingDialog, LabelDialog, ConfirmDialog)
