"""The session view's comparison: mark an entry, then another, to compare their branches.

:class:`ComparesSession` is the part of :class:`~pitui.ui.screens.session.SessionScreen` that
marks (the tree draws the marked row with a ◆) and opens the
:class:`~pitui.ui.screens.compare.CompareScreen`; what that screen answers, it does here: show
an entry in the tree, or continue a branch with the tree's own branch flow (``branch_here``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pitui.safe_text import safe_line
from pitui.ui.widgets.session_tree import SessionTree

if TYPE_CHECKING:
    from pitui.store.reader import Session
    from pitui.ui.screens.base import PituiScreen

    _Base = PituiScreen
else:
    _Base = object

__all__ = ["ComparesSession"]


class ComparesSession(_Base):
    """Marking and comparing: a mixin of the session view, which provides the rest."""

    session: Session | None
    compare_mark: Any = None  # the entry marked for a comparison

    if TYPE_CHECKING:

        def _say(self, text: str, *, error: bool = False) -> None: ...
        def branch_here(self, entry_id: Any, *, at_leaf: bool = False) -> Any: ...

    def action_compare_mark(self) -> None:
        """Ctrl+Y: mark the highlighted entry; on another entry, compare; on it again, unmark."""
        tree = self.query_one(SessionTree)
        entry_id = tree.selected_id
        if self.session is None or tree.model is None or not len(tree.model) or entry_id is None:
            self._say("No entry to mark", error=True)
            return
        marked = self.compare_mark
        if marked is None:
            self.compare_mark = entry_id
            tree.mark(entry_id)
            key = self.app.keys_text("session.compare")
            self._say(f"Marked {safe_line(str(entry_id))[:8]}: {key} on another entry compares (Escape clears)")
        elif marked == entry_id:
            self.clear_compare_mark()
            self._say("Mark cleared")
        else:
            self.clear_compare_mark()
            from pitui.ui.screens.compare import CompareScreen  # (its modules: only when comparing)

            self.app.push_screen(CompareScreen(self.session, marked, entry_id), self._compared)

    def clear_compare_mark(self) -> bool:
        """Unmark (False: nothing was marked)."""
        if self.compare_mark is None:
            return False
        self.compare_mark = None
        self.query_one(SessionTree).mark(None)
        return True

    def _compared(self, result: Any) -> None:
        """What the comparison screen answered: show an entry, or continue a branch."""
        if not result:
            return
        action, entry_id = result
        tree = self.query_one(SessionTree)
        shown = tree.reveal(entry_id)
        if action == "continue":
            # Enter on that row of the tree, exactly (at_leaf as the tree shows it).
            self.branch_here(entry_id, at_leaf=shown and tree.at_leaf)
        elif shown:
            self._say(f"At entry {safe_line(str(entry_id))[:8]}, from the comparison")
        else:
            self._say(f"Entry {safe_line(str(entry_id))[:8]} is not shown in the tree: at the nearest entry above it")
