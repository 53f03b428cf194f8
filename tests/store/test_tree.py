"""The tree model (pitui.store.tree.model): pi's /tree navigator, row by row: the golden renders
and the text and role of each row.

The golden renders are the ones in the reference (pi-ui-behaviour.md §2, pi-session-format.md
§8), produced by pi's own component. Navigation is in test_tree_navigation.py, the comparison
with pi itself in tests/conformance/test_tree_vs_pi.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from helpers.tree_build import (
    HOME,
    Build,
    approaches,
    branching,
    golden,
    ids,
    model,
    render,
)

if TYPE_CHECKING:
    pass


# ---------------------------------------------------------------------------------------------
# golden renders


def test_golden_default() -> None:
    m = model(approaches().session(leaf="a6"))
    assert render(m) == golden("""
  • user: Hello, can you help me with this?
  • assistant: Of course! I can help.
  ├⊟ • [checkpoint-1] user: Let's try approach A
  │  ├⊟ • [read: ~/x/file.ts:10-29]
  │  │     • [bash: ls -la && echo something very long that goes beyon...]
  │  │     • assistant: For approach A...
  │  │     • user: That worked
  │  │     • assistant: (aborted)
  │  │     • [note]: injected text
  │  │     • [bash]: git status
  │  │     • [mytool: {"a":1,"b":"xyz"}]
› │  │     • assistant: Rate limit exceeded
  │  └─ [branch summary]: Branch explored stuff
  └⊟ [alt] user: Actually, approach B
        assistant: For approach B...
        ├─ [compaction: 51k tokens]
        └─ user: third branch from a6
  (12/17)
""")


def test_golden_all() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="all")
    assert render(m) == golden("""
  • user: Hello, can you help me with this?
  • assistant: Of course! I can help.
  ├⊟ • [model: claude-sonnet-4-5]
  │     • [thinking: high]
  │     • [checkpoint-1] user: Let's try approach A
  │     ├⊟ • [read: ~/x/file.ts:10-29]
  │     │     • [bash: ls -la && echo something very long that goes beyon...]
  │     │     • assistant: For approach A...
  │     │     • user: That worked
  │     │     • assistant: (aborted)
  │     │     • [title: My session]
  │     │     • [custom: my-ext]
  │     │     • [note]: injected text
  │     │     • [bash]: git status
  │     │     • [mytool: {"a":1,"b":"xyz"}]
› │     │     • assistant: Rate limit exceeded
  │     │     [label: checkpoint-1]
  │     │     [label: alt]
  │     └─ [branch summary]: Branch explored stuff
  └⊟ [alt] user: Actually, approach B
        assistant: For approach B...
        ├─ [compaction: 51k tokens]
        └─ user: third branch from a6
  (16/23) [all]
""")


def test_golden_user_only() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="user-only")
    assert render(m) == golden("""
  • user: Hello, can you help me with this?
  ├⊟ • [checkpoint-1] user: Let's try approach A
› │     • user: That worked
  └⊟ [alt] user: Actually, approach B
        user: third branch from a6
  (3/5) [user]
""")


def test_golden_labeled_only() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="labeled-only")
    assert render(m) == golden("""
› • [checkpoint-1] user: Let's try approach A
  [alt] user: Actually, approach B
  (1/2) [labeled]
""")


def test_golden_label_time() -> None:
    m = model(approaches().session(leaf="a6"))
    m.toggle_label_times()
    text = render(m)
    assert text[2] == "  ├⊟ • [checkpoint-1] 10:00 user: Let's try approach A"
    assert text[13] == "  └⊟ [alt] 10:00 user: Actually, approach B"
    assert text[-1] == "  (12/17) [+label time]"


def test_golden_folded_root() -> None:
    m = model(approaches().session(leaf="a6"))
    m.first()
    m.fold_or_up()
    assert render(m) == ["› ⊞ • user: Hello, can you help me with this?", "  (1/1)"]


def test_golden_branching_active_branch_first() -> None:
    assert render(model(branching().session(leaf="a4a"))) == golden("""
  • user: first message
  • assistant: response 1
  • user: second message
  • assistant: response 2
  ├⊟ • user: branch A start
  │     • assistant: branch A response
  │     • user: branch A deep
› │     • assistant: branch A leaf
  └⊟ user: branch B start
        assistant: branch B response
        user: branch B deep
  (8/11)
""")
    assert render(model(branching().session()))[4:12] == golden("""
  ├⊟ • user: branch B start
  │     • assistant: branch B response
› │     • user: branch B deep
  └⊟ user: branch A start
        assistant: branch A response
        user: branch A deep
        assistant: branch A leaf
  (7/11)
""")


def test_golden_nested_branch() -> None:
    b = Build()
    b.user("q", None, "q")
    b.assistant("r", "q", "r")
    b.user("x", "r", "X")
    b.assistant("x!", "x", "X!")
    b.user("x1", "x!", "X1")  # older than X2, but X2 holds the leaf
    b.user("x2", "x!", "X2")
    b.assistant("x2!", "x2", "X2!")
    b.user("y", "r", "Y")
    b.assistant("y!", "y", "Y!")
    assert render(model(b.session(leaf="x2!"))) == golden("""
  • user: q
  • assistant: r
  ├⊟ • user: X
  │     • assistant: X!
  │     ├⊟ • user: X2
› │     │     • assistant: X2!
  │     └─ user: X1
  └⊟ user: Y
        assistant: Y!
  (6/9)
""")


def test_golden_two_roots() -> None:
    b = Build()
    b.user("r1", None, "first root")
    b.assistant("a1", "r1", "response 1")
    b.user("r2", None, "second root")
    b.assistant("a2", "r2", "response 2")
    assert render(model(b.session(leaf="a1"))) == golden("""
  • user: first root
›    • assistant: response 1
  user: second root
     assistant: response 2
  (2/4)
""")


# ---------------------------------------------------------------------------------------------
# rows: text and roles


def test_row_segments_carry_roles() -> None:
    m = model(approaches().session(leaf="a6"))
    row = m.row(2)
    assert row.segments == (
        ("├⊟ ", "dim"),
        ("• ", "accent"),
        ("[checkpoint-1] ", "warning"),
        ("user: ", "accent"),
        ("Let's try approach A", ""),
    )
    assert row.content_start == 3
    assert m.row(11).segments[-2:] == (("assistant: ", "success"), ("Rate limit exceeded", "error"))
    assert m.row(3).segments[-1] == ("[read: ~/x/file.ts:10-29]", "muted")
    assert m.row(12).segments[-2:] == (("[branch summary]: ", "warning"), ("Branch explored stuff", ""))
    assert m.row(15).segments[-1] == ("[compaction: 51k tokens]", "border_accent")
    assert m.row(8).segments[-2][1] == "custom"


def entry_text(build: Build, eid: str) -> str:
    """The entry's own text in its row."""
    m = model(build.session(), filter_mode="all")
    assert m.select(eid) and m.selected_id == eid
    row = m.row(m.cursor)
    return "".join(text for text, _ in row.segments[row.content_start :])


def test_tool_calls_are_described_as_pi_does() -> None:
    b = Build()
    calls = [
        ("r1", "read", {"path": "/srv/a.py"}),
        ("r2", "read", {"file_path": f"{HOME}/b.py", "offset": 5}),
        ("r3", "read", {"path": "c.py", "limit": 20}),
        ("w", "write", {"file_path": f"{HOME}/w.txt"}),
        ("e", "edit", {"path": "e.txt"}),
        ("b", "bash", {"command": "echo\tone\ntwo"}),
        ("g", "grep", {"pattern": "a|b"}),
        ("f", "find", {"pattern": "*.py", "path": f"{HOME}/src"}),
        ("l", "ls", {}),
        ("x", "custom_tool", {"query": "something long enough to be cut off"}),
    ]
    b.assistant("a", None, calls=calls)
    parent = "a"
    for cid, name, _ in calls:
        parent = b.result(f"t{cid}", parent, cid, name)
    b.result("orphan", parent, "nope", "read")
    b.message("nameless", "orphan", "toolResult", toolCallId="nope2", content=[])
    expected = {
        "tr1": "[read: /srv/a.py]",
        "tr2": "[read: ~/b.py:5]",
        "tr3": "[read: c.py:1-20]",
        "tw": "[write: ~/w.txt]",
        "te": "[edit: e.txt]",
        "tb": "[bash: echo one two]",
        "tg": "[grep: /a|b/ in .]",
        "tf": "[find: *.py in ~/src]",
        "tl": "[ls: .]",
        "tx": '[custom_tool: {"query":"something long enough to be cu...]',
        "orphan": "[read]",
        "nameless": "[tool]",
    }
    for eid, text in expected.items():
        assert entry_text(b, eid) == text, eid


def test_tool_call_found_off_the_path() -> None:
    """The call of a tool result is looked for above it first, then in the whole tree."""
    b = Build()
    b.user("u", None, "go")
    b.assistant("a", "u", calls=[("c1", "ls", {"path": "/elsewhere"})])
    b.user("u2", None, "another root")
    b.result("t", "u2", "c1", "ls")
    assert entry_text(b, "t") == "[ls: /elsewhere]"


def test_display_text_of_every_kind() -> None:
    b = Build()
    b.add("label", "l1", None, targetId="x")  # cleared: no label key
    b.add("session_info", "s1", "l1", name="")
    b.add("compaction", "c1", "s1", summary="", tokensBefore=1500)
    b.add(
        "custom_message",
        "m1",
        "c1",
        customType="ext",
        content=[{"type": "text", "text": "a\nb"}, {"type": "image"}, {"type": "text", "text": " c"}],
    )
    b.message("o1", "m1", "custom", content="x")
    b.assistant("a1", "o1", stop="length")
    b.user("u1", "a1", "  tabs\there\n  ")
    b.add("mystery", "z1", "u1")
    b.assistant("a2", "z1", text="x" * 300)
    assert entry_text(b, "l1") == "[label: (cleared)]"
    assert entry_text(b, "s1") == "[title: empty]"
    assert entry_text(b, "c1") == "[compaction: 2k tokens]"  # Math.round(1.5)
    assert entry_text(b, "m1") == "[ext]: a b c"
    assert entry_text(b, "o1") == "[custom]"
    assert entry_text(b, "a1") == "assistant: (no content)"
    assert entry_text(b, "u1") == "user: tabs here"
    assert entry_text(b, "z1") == ""
    assert entry_text(b, "a2") == "assistant: " + "x" * 200
    m = model(b.session(), filter_mode="all")
    m.select("s1")
    assert m.row(m.cursor).segments[-3:] == (("[title: ", "dim"), ("empty", "dim_italic"), ("]", "dim"))


def test_text_is_cut_in_utf16_units_as_in_javascript() -> None:
    b = Build()
    b.user("u", None, "a" + "😀" * 150)
    text = entry_text(b, "u").removeprefix("user: ")
    assert text == "a" + "😀" * 99 + "\ud83d"  # 200 units: the last pair is split, as in pi


def test_tool_call_only_assistants_are_hidden_unless_leaf_or_stopped_oddly() -> None:
    b = Build()
    b.user("u", None, "go")
    b.assistant("calls", "u", calls=[("c", "ls", {})])
    b.result("t", "calls", "c", "ls")
    b.assistant("blank", "t", text="  \n ")
    b.assistant("long", "blank", stop="length")
    b.assistant("last", "long", calls=[("d", "ls", {})])
    session = b.session()
    assert session.by_id["calls"].textless and session.by_id["blank"].textless
    assert not session.by_id["long"].textless
    for mode in ("default", "no-tools", "all"):
        shown = ids(model(session, filter_mode=mode))
        assert "calls" not in shown and "blank" not in shown
        assert shown[-2:] == ["long", "last"]  # the leaf is always shown
