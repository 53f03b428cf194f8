"""The text editor of pitui's dialogs, acting on keys in the order they were typed.

Apart from :mod:`pitui.ui.widgets.fields` because Textual's ``TextArea`` brings its document
model and syntax support, which the picker's first screen does not need."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import TextArea

from pitui.ui.keys import OrderedKeys

__all__ = ["OrderedTextArea"]


class OrderedTextArea(OrderedKeys, TextArea):
    """A text editor in a dialog: the dialog's keys (Ctrl+S, Escape) come first; the rest is the
    editor's own, text included."""

    SCREEN_FIRST: ClassVar[bool] = True
    OWNS_TEXT: ClassVar[bool] = False
