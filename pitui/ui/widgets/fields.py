"""The focusable widgets pitui's screens and dialogs use, each acting on keys in the order they
were typed (:class:`~pitui.ui.keys.OrderedKeys`). The dialogs' text editor is in
:mod:`pitui.ui.widgets.text_area_field`."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.widgets import Input, OptionList

from pitui.ui.keys import OrderedKeys, declared_bindings

if TYPE_CHECKING:
    from textual.dom import DOMNode

__all__ = ["OrderedInput", "OrderedOptionList", "SearchField"]


class OrderedInput(OrderedKeys, Input):
    """A one-line text field in a dialog: the dialog's keys (Escape, Ctrl+C) come first."""

    SCREEN_FIRST: ClassVar[bool] = True

    def type_key(self, key: str, character: str | None) -> None:
        if character is None or not character.isprintable():
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(character)
        else:
            self.replace(character, *selection)


class OrderedOptionList(OrderedKeys, OptionList):
    """A list of choices: keys no binding claims do nothing."""


class SearchField(OrderedInput):
    """A screen's search box. The screen's keys come first; one that acts on a row waits, with
    every key behind it, until the screen shows the rows of what was typed before it (the
    screen's ``key_waits``); while the screen's ``typing_locked`` (a question is asked), keys
    that are not the screen's do nothing."""

    @property
    def content_width(self) -> int:
        # Input makes this its virtual width at every change of its value, and a new virtual
        # width lays the whole screen out again: at every keystroke. As wide as the box at
        # least, it changes only once the text is wider than the box (scrolling is the same).
        return max(super().content_width, self.scrollable_content_region.width)

    def key_actions(self, key: str, character: str | None = None) -> list[tuple[DOMNode, str]]:
        if getattr(self.screen, "typing_locked", False):
            return [(self.screen, binding.action) for binding in declared_bindings(self.screen, key)]
        return super().key_actions(key, character)

    def key_waits(self, key: str, character: str | None, actions: list[tuple[DOMNode, str]]) -> bool:
        waits = getattr(self.screen, "key_waits", None)
        return bool(waits is not None and waits(actions))

    def type_key(self, key: str, character: str | None) -> None:
        if not getattr(self.screen, "typing_locked", False):
            super().type_key(key, character)
