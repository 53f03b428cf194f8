"""Every key binding of the app's screens and widgets, by where it acts: the ids a user's
``[keys]`` table rebinds (see the README's Settings), the keys screen and the palette show.

A screen or widget takes its table as its ``BINDINGS``; what each action does is that class's
``action_*`` method.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

__all__ = ["COMPARE", "CONVERSATION", "ENTRIES", "PICKER", "SESSION", "TREE", "USAGE"]


# The session picker's. The search box has the focus and takes the text: none of these is a
# typed letter.
PICKER: list[BindingType] = [
    Binding("up", "cursor(-1)", "Previous session", id="picker.up", show=False),
    Binding("down", "cursor(1)", "Next session", id="picker.down", show=False),
    Binding("pageup", "page(-1)", "A page up", id="picker.page_up", show=False),
    Binding("pagedown", "page(1)", "A page down", id="picker.page_down", show=False),
    Binding("enter", "confirm", "Open the session (or confirm a delete)", id="picker.open"),
    Binding("escape,ctrl+c", "cancel", "Cancel a delete; clear the search; else quit", id="picker.cancel"),
    Binding("tab", "toggle_scope", "Scope: this folder or all projects", id="picker.scope"),
    Binding("ctrl+s", "toggle_sort", "Sort: threaded, recent, fuzzy", id="picker.sort"),
    Binding("ctrl+n", "toggle_named", "Named sessions only, or all", id="picker.named"),
    Binding("ctrl+p", "toggle_path", "Show or hide file paths", id="picker.path"),
    Binding("ctrl+r", "rename", "Rename the session", id="picker.rename"),
    Binding("ctrl+d", "delete", "Move the session to the trash", id="picker.delete"),
    Binding(
        "ctrl+backspace",
        "delete_if_no_query",
        "Trash the session (empty search only)",
        id="picker.delete_noninvasive",
    ),
    Binding("ctrl+o", "resume", "Resume the session in pi", id="picker.resume"),
    Binding("ctrl+f", "find_entries", "Find entries: messages in every session", id="picker.find_entries"),
    Binding("ctrl+g", "usage", "Usage: tokens and cost per day, project, model", id="picker.usage"),
]


# The usage screen's (no text field there: letters are keys).
USAGE: list[BindingType] = [
    # Enter is the table's (its RowSelected opens the row), not a priority binding: a priority
    # binding would act before keys typed ahead of it in the same read had taken effect.
    Binding("enter", "open", "The row's sessions, in the picker", id="usage.open"),
    Binding("g", "group", "Group by day, project or model", id="usage.group"),
    Binding("p", "period", "Period: last 7, 30, 90 days or all", id="usage.period"),
    Binding("tab", "scope", "Scope: this folder or all projects", id="usage.scope"),
    Binding("m", "metric", "Plot: tokens or cost", id="usage.metric"),
    Binding("escape", "back", "Back to the picker", id="usage.back"),
]


# The Find entries screen's. Its search box has the focus and takes the text: none of these is a
# typed letter.
ENTRIES: list[BindingType] = [
    Binding("up", "cursor(-1)", "Previous hit", id="entries.up", show=False),
    Binding("down", "cursor(1)", "Next hit", id="entries.down", show=False),
    Binding("pageup", "cursor(-10)", "A page up", id="entries.page_up", show=False),
    Binding("pagedown", "cursor(10)", "A page down", id="entries.page_down", show=False),
    Binding("enter", "open", "Open the session at this entry", id="entries.open"),
    Binding("tab", "toggle_scope", "Scope: this folder or all projects", id="entries.scope"),
    Binding("escape", "back", "Back to the session list", id="entries.back"),
]

# The session view's. Text typed there goes into the tree's search: none of these but pi's own
# Shift+L is a typed letter.
SESSION: list[BindingType] = [
    Binding("escape", "back", "Back", id="session.back", tooltip="Back to the session list"),
    Binding(
        "shift+l,L", "edit_label", "Label", id="session.label", tooltip="Set or clear the highlighted entry's label"
    ),
    Binding("ctrl+r", "rename", "Rename", show=False, id="session.rename", tooltip="Rename the session"),
    Binding(
        "ctrl+n",
        "fork",
        "Fork",
        id="session.fork",
        tooltip="A new session with the path up to the highlighted entry (asks first)",
    ),
    Binding(
        "ctrl+k",
        "clone",
        "Clone",
        show=False,
        id="session.clone",
        tooltip="A new session with the whole active path (asks first)",
    ),
    Binding(
        "ctrl+delete,f8",
        "trash",
        "Trash",
        show=False,
        id="session.trash",
        tooltip="Move the session to the trash (asks first)",
    ),
    Binding(
        "ctrl+p",
        "resume",
        "Resume in pi",
        show=False,
        id="session.resume",
        tooltip="Leave pitui and continue the session in pi",
    ),
    Binding(
        "ctrl+e",
        "context_omit",
        "Omit/restore",
        show=False,
        id="session.context_omit",
        tooltip="Omit the highlighted entry from the model's context, or restore it (a context_edit entry)",
    ),
    Binding(
        "ctrl+w",
        "context_replace",
        "Replace",
        show=False,
        id="session.context_replace",
        tooltip="Replace the highlighted entry's content in the model's context with a note",
    ),
    Binding("ctrl+z", "undo", "Undo", id="session.undo", tooltip="Undo the last label, rename, branch or context edit"),
    Binding("f5", "reload", "Reload", show=False, id="session.reload", tooltip="Read the file again from disk"),
    Binding(
        "ctrl+s",
        "context_view",
        "Model's view",
        id="session.context_view",
        tooltip="The conversation as the model sees it, or everything on the path",
    ),
    Binding(
        "ctrl+y",
        "compare_mark",
        "Compare",
        id="session.compare",
        tooltip="Mark the highlighted entry; on another entry, compare the two branches (again: unmark)",
    ),
]


# The comparison screen's (no text is typed there).
COMPARE: list[BindingType] = [
    Binding("escape", "back", "Back", id="compare.back", tooltip="Back to the session view"),
    Binding("up", "move(-1)", "Up", show=False, id="compare.up", tooltip="Previous item of this side"),
    Binding("down", "move(1)", "Down", show=False, id="compare.down", tooltip="Next item of this side"),
    Binding("left", "side(0)", "Side A", show=False, id="compare.left", tooltip="Side A (the marked entry's)"),
    Binding("right", "side(1)", "Side B", show=False, id="compare.right", tooltip="Side B"),
    Binding("enter", "jump", "Go to entry", id="compare.jump", tooltip="Show the item's entry in the tree"),
    Binding("ctrl+a", "continue(0)", "Continue A", id="compare.continue_a", tooltip="Branch to A's entry (asks first)"),
    Binding("ctrl+b", "continue(1)", "Continue B", id="compare.continue_b", tooltip="Branch to B's entry (asks first)"),
]


# The session tree's: pi's /tree keys and pitui's own. Every printable key but Shift+L and
# Shift+T is search text.
TREE: list[BindingType] = [
    Binding("up", "cursor_up", "Up", show=False, id="tree.cursor_up", tooltip="Previous row (wraps to the last)"),
    Binding("down", "cursor_down", "Down", show=False, id="tree.cursor_down", tooltip="Next row (wraps to the first)"),
    Binding(
        "left,ctrl+b,pageup",
        "page_up",
        "Page up",
        show=False,
        id="tree.page_up",
        tooltip="Up by the height of the tree",
    ),
    Binding(
        "right,ctrl+f,pagedown",
        "page_down",
        "Page down",
        show=False,
        id="tree.page_down",
        tooltip="Down by the height of the tree",
    ),
    Binding("home", "first", "First", show=False, id="tree.first", tooltip="First row"),
    Binding("end", "last", "Last", show=False, id="tree.last", tooltip="Last row"),
    Binding(
        "ctrl+left,alt+left",
        "fold_or_up",
        "Fold/up",
        show=False,
        id="tree.fold_or_up",
        tooltip="Fold the branch, or go up to the start of the branch segment",
    ),
    Binding(
        "ctrl+right,alt+right",
        "unfold_or_down",
        "Unfold/down",
        show=False,
        id="tree.unfold_or_down",
        tooltip="Unfold the branch, or go down to the next branch point or the end",
    ),
    Binding(
        "enter",
        "select",
        "Branch",
        id="tree.select",
        tooltip="Branch here: continue the conversation from this entry",
    ),
    Binding(
        "escape",
        "clear_query",
        "Back",
        id="tree.clear_query",
        tooltip="Clear the search (left to the screen when there is none)",
    ),
    Binding(
        "backspace",
        "delete_query_char",
        "Delete",
        show=False,
        id="tree.delete_query_char",
        tooltip="Delete the last character of the search",
    ),
    Binding(
        "ctrl+d",
        "filter('default')",
        "Default",
        show=False,
        id="tree.filter_default",
        tooltip="Filter: default (no bookkeeping entries)",
    ),
    Binding(
        "ctrl+t",
        "toggle_filter('no-tools')",
        "No tools",
        show=False,
        id="tree.filter_no_tools",
        tooltip="Filter: without tool results (again: default)",
    ),
    Binding(
        "ctrl+u",
        "toggle_filter('user-only')",
        "User",
        show=False,
        id="tree.filter_user_only",
        tooltip="Filter: user messages only (again: default)",
    ),
    Binding(
        "ctrl+l",
        "toggle_filter('labeled-only')",
        "Labeled",
        show=False,
        id="tree.filter_labeled_only",
        tooltip="Filter: labelled entries only (again: default)",
    ),
    Binding(
        "ctrl+a",
        "toggle_filter('all')",
        "All",
        show=False,
        id="tree.filter_all",
        tooltip="Filter: everything (again: default)",
    ),
    Binding(
        "ctrl+o",
        "cycle_filter(1)",
        "Filter",
        show=False,
        id="tree.filter_next",
        tooltip="Next filter: default, no-tools, user, labeled, all",
    ),
    Binding(
        "ctrl+shift+o",
        "cycle_filter(-1)",
        "Filter back",
        show=False,
        id="tree.filter_previous",
        tooltip="Previous filter",
    ),
    Binding(
        "shift+t,T",
        "toggle_label_times",
        "Label time",
        show=False,
        id="tree.label_times",
        tooltip="Show or hide when labels were set",
    ),
    Binding(
        "ctrl+x",
        "copy",
        "Copy",
        show=False,
        id="tree.copy",
        tooltip="Copy the highlighted entry's full text to the clipboard",
    ),
    Binding("ctrl+g", "leaf", "Leaf", show=False, id="tree.leaf", tooltip="Go to the current leaf"),
    Binding("alt+up", "parent", "Parent", show=False, id="tree.parent", tooltip="Go to the parent entry"),
    Binding(
        "ctrl+down,alt+down",
        "sibling(1)",
        "Next branch",
        show=False,
        id="tree.next_branch",
        tooltip="Go to the next branch beside this one",
    ),
    Binding(
        "ctrl+up",
        "sibling(-1)",
        "Previous branch",
        show=False,
        id="tree.previous_branch",
        tooltip="Go to the previous branch beside this one",
    ),
    Binding(
        "alt+n", "label(1)", "Next label", show=False, id="tree.next_label", tooltip="Go to the next labelled entry"
    ),
    Binding(
        "alt+p",
        "label(-1)",
        "Previous label",
        show=False,
        id="tree.previous_label",
        tooltip="Go to the previous labelled entry",
    ),
]


# The conversation pane's.
CONVERSATION: list[BindingType] = [
    Binding("up,k", "cursor_up", "Previous", id="conversation.cursor_up", show=False),
    Binding("down,j", "cursor_down", "Next", id="conversation.cursor_down", show=False),
    Binding("pageup", "page_up", "Page up", id="conversation.page_up", show=False),
    Binding("pagedown", "page_down", "Page down", id="conversation.page_down", show=False),
    Binding("home", "first", "First", id="conversation.first", show=False),
    Binding("end", "last", "Last", id="conversation.last", show=False),
    Binding("enter,space", "toggle", "Expand", id="conversation.toggle"),
    Binding(
        "t",
        "toggle_thinking",
        "Thinking",
        show=False,
        id="conversation.toggle_thinking",
        tooltip="Show or fold every thinking block",
    ),
]
