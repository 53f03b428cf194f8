"""pi's ``/tree`` navigator as plain data: :class:`TreeModel` and the text of its rows."""

from pitui.store.tree.model import FILTER_TAGS, FILTERS, TreeModel
from pitui.store.tree.rows import RowText

__all__ = ["FILTERS", "FILTER_TAGS", "RowText", "TreeModel"]
