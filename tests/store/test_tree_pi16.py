"""What pi 1.6's ``/tree`` changed, in the tree model: ``usage`` entries hidden in every filter,
``context_edit`` rows, ``[system]`` rows, deferred answers, ``read`` line ranges and home
shortening, the Ctrl+X copy text, and where Enter counts as "at the leaf" (pi's B10, fixed).

Each is also compared with pi 1.6.0 itself in tests/conformance/test_tree_vs_pi.py.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from helpers.tree_build import Build, golden, ids, model, render

from pitui.store.content import format_read_line_range, format_tool_call, get_entry_copy_text
from pitui.store.js import MISSING
from pitui.store.tree import FILTERS


def _usage(b: Build, eid: str, parent: str, tokens: int) -> None:
    """A usage entry (its ``kind`` field is no keyword of Build.add)."""
    b.add("usage", eid, parent)
    b.lines[-1].update(kind="cache_warm", provider="p", model="m", usage={"input": tokens})


def pi16_session() -> Build:
    """A pi 1.6 session: its system message, a usage entry mid-chain (with a child), a labelled
    usage entry, context edits (omit, replace, one without replacement), and a usage leaf."""
    b = Build()
    b.message("sy", None, "system", content="", sections={"preamble": "You are pi."})
    b.user("u1", "sy", "first question")
    b.assistant("a1", "u1", "first answer")
    _usage(b, "us1", "a1", 1)
    b.user("u2", "us1", "second question")
    b.assistant("a2", "u2", "second answer")
    b.add("context_edit", "ce1", "a2", targetId="a1", replacement=None)
    b.add("context_edit", "ce2", "ce1", targetId="u1", replacement={"content": "short"})
    b.add("context_edit", "ce3", "ce2", targetId="u2")
    _usage(b, "us2", "ce3", 2)
    b.label("lb", "us2", "us1", "warm")
    _usage(b, "us3", "lb", 3)
    return b


def test_usage_entries_are_hidden_in_every_filter_and_their_children_re_attach() -> None:
    session = pi16_session().session()
    for mode in FILTERS:
        shown = ids(model(session, filter_mode=mode))
        assert not {"us1", "us2", "us3"} & set(shown), mode  # even labelled (us1), even the leaf (us3)
    m = model(session, filter_mode="all")
    assert render(m) == golden("""
  • [system]
  • user: first question
  • assistant: first answer
  • user: second question
  • assistant: second answer
  • [context omit: a1]
  • [context replace: u1]
  • [context replace: u2]
› • [label: warm]
  (9/9) [all]""")
    assert model(session, filter_mode="labeled-only").status_text == "(0/0) [labeled]"  # us1's label shows nothing


def test_context_edits_are_bookkeeping_and_the_cursor_starts_on_the_leafs_nearest_shown_ancestor() -> None:
    session = pi16_session().session()
    m = model(session)
    assert render(m) == golden("""
  • [system]
  • user: first question
  • assistant: first answer
  • user: second question
› • assistant: second answer
  (5/5)""")
    assert ids(model(session, filter_mode="no-tools"))[0] == "sy"  # [system] shows in no-tools too
    assert ids(model(session, filter_mode="user-only")) == ["u1", "u2"]


def test_search_finds_context_edits_and_system_messages_as_pi_words_them() -> None:
    session = pi16_session().session()
    m = model(session, filter_mode="all")
    m.set_query("context edit omit")
    assert ids(m) == ["ce1"]
    m.set_query("replace u2")
    assert ids(m) == ["ce3"]  # no replacement at all is no null: "replace"
    m.set_query("system")
    assert ids(m) == ["sy"]
    m.set_query("preamble")  # sections are not searchable
    assert ids(m) == []


def test_a_deferred_answer_without_text_stays_visible() -> None:
    b = Build()
    b.user("u", None, "go")
    b.message("d", "u", "assistant", content=[], stopReason="deferred")
    b.user("u2", "d", "next")
    assert render(model(b.session())) == golden("""
  • user: go
  • assistant: (no content)
› • user: next
  (3/3)""")


@pytest.mark.parametrize(
    ("offset", "limit", "suffix"),
    [
        (MISSING, MISSING, ""),
        (None, None, ""),
        (None, MISSING, ""),
        (10, 20, ":10-29"),
        (None, 5, ":1-5"),
        (MISSING, 5, ":1-5"),
        (7, None, ":7"),
        ("12", "3", ":12-14"),
        (" 4 ", MISSING, ":4"),
        ("", 2, ""),
        ("x", 2, ""),
        (1, "abc", ""),
        (True, 2, ""),
        (math.inf, 2, ""),
        (1, 0, ":1"),  # the end is 0: left out
        (0, 1, ":0"),
        (2.5, 1.25, ":2.5-2.75"),
        ("0x10", "1e1", ":16-25"),
    ],
)
def test_read_line_ranges_follow_format_read_line_range(offset: Any, limit: Any, suffix: str) -> None:
    assert format_read_line_range(offset, limit) == suffix


def test_tool_paths_are_shortened_only_within_home() -> None:
    home = "/home/me"
    assert format_tool_call("read", {"path": "/home/me/x.py", "offset": None, "limit": None}, home) == "[read: ~/x.py]"
    assert format_tool_call("edit", {"path": "/home/me2/x.py"}, home) == "[edit: /home/me2/x.py]"
    assert format_tool_call("ls", {"path": "/home/me"}, home) == "[ls: ~]"
    assert format_tool_call("write", {"file_path": "/home/me/a/../b"}, home) == "[write: ~/b]"
    assert format_tool_call("grep", {"pattern": "x", "path": "src"}, home) == "[grep: /x/ in src]"


def _message(**fields: Any) -> dict[str, Any]:
    return {"type": "message", "id": "m", "parentId": None, "message": fields}


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (_message(role="user", content="a question\nin two lines"), "a question\nin two lines"),
        (
            _message(
                role="user", content=[{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]
            ),
            "ab",
        ),
        (_message(role="assistant", content=[{"type": "thinking", "thinking": "t"}], errorMessage="boom"), "boom"),
        (_message(role="assistant", content=[{"type": "text", "text": "   "}], errorMessage="boom"), None),
        (_message(role="assistant", content=[]), None),
        (_message(role="toolResult", content=[{"type": "text", "text": "output"}]), "output"),
        (_message(role="bashExecution", command="ls -la", output="x"), "ls -la"),
        (_message(role="bashExecution", command=5), None),  # pi would throw: nothing to copy
        (_message(role="system", content=""), None),
        (_message(role="user", content=None), None),
        (_message(role="user", content=[{"type": "text"}]), "undefined"),  # JavaScript's +=
        ({"type": "custom_message", "content": [{"type": "text", "text": "note"}]}, "note"),
        ({"type": "compaction", "summary": "what happened"}, "what happened"),
        ({"type": "branch_summary", "summary": "  "}, None),
        ({"type": "label", "label": "x"}, None),
        ({"type": "usage"}, None),
    ],
)
def test_copy_text_follows_get_entry_copy_text(data: dict[str, Any], text: str | None) -> None:
    assert get_entry_copy_text(data) == text


def test_copy_text_of_the_selected_row() -> None:
    m = model(pi16_session().session())
    assert m.copy_text() == "second answer"
    m.select("sy")
    assert m.copy_text() is None


def _at_leaf(m: Any) -> list[Any]:
    """The rows where Enter stays at the leaf."""
    found = []
    for row in range(len(m)):
        m.select_row(row)
        if m.at_leaf():
            found.append(m.selected_id)
    return found


@pytest.mark.parametrize("mode", ["default", "no-tools", "all"])
def test_enter_on_the_nearest_shown_ancestor_of_a_hidden_leaf_is_at_the_leaf(mode: str) -> None:
    """pi's B10, fixed: the leaf (a usage entry, under a label and context edits) is hidden, and
    the row the cursor starts on, with only bookkeeping in between, is where the user is."""
    m = model(pi16_session().session(), filter_mode=mode)
    assert _at_leaf(m) == (["lb"] if mode == "all" else ["a2"])


def test_a_message_between_makes_enter_a_move() -> None:
    session = pi16_session().session()
    user_only = model(session, filter_mode="user-only")
    assert _at_leaf(user_only) == []  # u2 is above an answer: choosing it asks it again, as in pi
    searching = model(session)
    searching.set_query("first")
    assert _at_leaf(searching) == []  # the search hides messages, it does not skip them
    plain = Build()
    plain.user("u", None, "q")
    plain.assistant("a", "u", "answer")
    assert _at_leaf(model(plain.session())) == ["a"]  # the leaf itself


def test_an_entry_type_that_is_a_json_array_is_an_unknown_entry() -> None:
    b = Build()
    b.add("message", "a", None)
    b.lines[-1].update(type=["x"])
    b.user("u", "a", "q")
    m = model(b.session(), filter_mode="all")
    assert ids(m) == ["a", "u"]  # a blank row, as pi draws an entry type it does not know
