"""The tree model (pitui.store.tree.model): pi's /tree navigator, row by row.

The golden renders are the ones in the reference (pi-ui-behaviour.md §2, pi-session-format.md
§8), produced by pi's own component; the oracle tests compare with pi itself on the demo
sessions and the fixtures, in every filter mode.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from pitui.store.reader import Session
from pitui.store.tree.model import FILTERS, TreeModel

if TYPE_CHECKING:
    from devkit.oracle import Oracle

HOME = "/home/me"
BASE = datetime(2025, 1, 1, 10, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]
DEMO_SESSIONS = sorted((REPO / "pitui" / "demo" / "sessions").glob("*/*.jsonl"))
FIXTURES = REPO / "tests" / "fixtures"


# ---------------------------------------------------------------------------------------------
# building sessions


def noon() -> datetime:
    """The clock of the label times: two hours after the session's first entry."""
    return BASE + timedelta(hours=2)


def _ts(n: int) -> str:
    return (BASE + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Build:
    """Entries with readable ids, each a second after the previous one."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s", "timestamp": _ts(0),
                                              "cwd": HOME}]

    def add(self, kind: str, eid: str, parent: str | None, **fields: Any) -> str:
        self.lines.append({"type": kind, "id": eid, "parentId": parent, "timestamp": _ts(len(self.lines)), **fields})
        return eid

    def message(self, eid: str, parent: str | None, role: str, **fields: Any) -> str:
        return self.add("message", eid, parent, message={"role": role, **fields})

    def user(self, eid: str, parent: str | None, text: str) -> str:
        return self.message(eid, parent, "user", content=text)

    def assistant(self, eid: str, parent: str | None, text: str | None = None, *, calls: list[Any] = (),
                  stop: str = "stop", **fields: Any) -> str:
        content: list[Any] = [{"type": "thinking", "thinking": "hmm"}]
        if text is not None:
            content.append({"type": "text", "text": text})
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        return self.message(eid, parent, "assistant", content=content, stopReason="toolUse" if calls else stop,
                            **fields)

    def result(self, eid: str, parent: str | None, call: str, tool: str, output: str = "ok") -> str:
        return self.message(eid, parent, "toolResult", toolCallId=call, toolName=tool,
                            content=[{"type": "text", "text": output}], isError=False)

    def label(self, eid: str, parent: str | None, target: str, label: str | None) -> str:
        fields = {"targetId": target} | ({"label": label} if label is not None else {})
        return self.add("label", eid, parent, **fields)

    def data(self) -> bytes:
        return b"".join(orjson.dumps(line) + b"\n" for line in self.lines)

    def session(self, leaf: str | None = None) -> Session:
        session = Session.from_bytes(self.data())
        if leaf is not None:
            session.leaf_id = leaf
        return session

    def write(self, path: Path) -> Path:
        path.write_bytes(self.data())
        return path


def approaches() -> Build:
    """The tree of the reference's golden renders (pi-ui-behaviour.md §2.4): a1 has two
    branches, the active one through bookkeeping entries, hidden tool-call-only assistants (a2,
    a5), every kind of row; the leaf is the error message a6, under which two labels hang."""
    b = Build()
    b.user("u1", None, "Hello, can you help me with this?")
    b.assistant("a1", "u1", "Of course! I can help.")
    b.add("model_change", "mc", "a1", provider="anthropic", modelId="claude-sonnet-4-5")
    b.add("thinking_level_change", "tl", "mc", thinkingLevel="high")
    b.user("u2", "tl", "Let's try approach A")
    b.assistant("a2", "u2", calls=[("c1", "read", {"path": f"{HOME}/x/file.ts", "offset": 10, "limit": 20}),
                                   ("c2", "bash", {"command": "ls -la && echo something very long that goes beyond"
                                                              " fifty characters"})])
    b.result("tr1", "a2", "c1", "read", "line 10\nline 11")
    b.result("tr2", "tr1", "c2", "bash", "total 0")
    b.assistant("a3", "tr2", "For approach A...")
    b.user("u3", "a3", "That worked")
    b.assistant("a4", "u3", stop="aborted")
    b.add("session_info", "si", "a4", name="My session")
    b.add("custom", "cu", "si", customType="my-ext", data={})
    b.add("custom_message", "cm", "cu", customType="note", content="injected text", display=True)
    b.message("be", "cm", "bashExecution", command="git status", output="clean", exitCode=0)
    b.assistant("a5", "be", calls=[("c3", "mytool", {"a": 1, "b": "xyz"})])
    b.result("tr3", "a5", "c3", "mytool")
    b.assistant("a6", "tr3", stop="error", errorMessage="Rate limit exceeded")
    b.label("l1", "a6", "u2", "checkpoint-1")
    b.label("l2", "l1", "u3b", "alt")
    b.add("branch_summary", "bs", "u2", fromId="a4", summary="Branch explored stuff")
    b.user("u3b", "a1", "Actually, approach B")
    b.assistant("a7", "u3b", "For approach B...")
    b.add("compaction", "cp", "a7", summary="s", firstKeptEntryId="u3b", tokensBefore=51234)
    b.user("u4", "a7", "third branch from a6")
    return b


def branching() -> Build:
    """tree-selector.test.ts's "branching" tree (pi-session-format.md §8.3)."""
    b = Build()
    b.user("u1", None, "first message")
    b.assistant("a1", "u1", "response 1")
    b.user("u2", "a1", "second message")
    b.assistant("a2", "u2", "response 2")
    b.user("u3a", "a2", "branch A start")
    b.assistant("a3a", "u3a", "branch A response")
    b.user("u4a", "a3a", "branch A deep")
    b.assistant("a4a", "u4a", "branch A leaf")
    b.user("u3b", "a2", "branch B start")
    b.assistant("a3b", "u3b", "branch B response")
    b.user("u4b", "a3b", "branch B deep")
    return b


def chain(count: int) -> Build:
    b = Build()
    parent = None
    for i in range(count):
        eid = f"n{i}"
        if i % 2:
            b.assistant(eid, parent, f"answer {i}")
        else:
            b.user(eid, parent, f"question {i}")
        parent = eid
    return b


def model(session: Session, **kwargs: Any) -> TreeModel:
    kwargs.setdefault("home", HOME)
    kwargs.setdefault("now", noon)
    kwargs.setdefault("tz", UTC)
    return TreeModel(session, **kwargs)


def render(m: TreeModel) -> list[str]:
    """The rows as pi prints them (cursor column included), then the status line."""
    rows = [("› " if i == m.cursor else "  ") + m.row(i).plain for i in range(len(m))]
    return [*rows, f"  {m.status_text}"] if rows else ["  No entries found", f"  {m.status_text}"]


def golden(text: str) -> list[str]:
    return text.strip("\n").split("\n")


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
    assert row.segments == (("├⊟ ", "dim"), ("• ", "accent"), ("[checkpoint-1] ", "warning"),
                            ("user: ", "accent"), ("Let's try approach A", ""))
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
    return "".join(text for text, _ in row.segments[row.content_start:])


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
        "tr1": "[read: /srv/a.py]", "tr2": "[read: ~/b.py:5]", "tr3": "[read: c.py:1-20]",
        "tw": "[write: ~/w.txt]", "te": "[edit: e.txt]", "tb": "[bash: echo one two]",
        "tg": "[grep: /a|b/ in .]", "tf": "[find: *.py in ~/src]", "tl": "[ls: .]",
        "tx": '[custom_tool: {"query":"something long enough to be cu...]',
        "orphan": "[read]", "nameless": "[tool]",
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
    b.add("custom_message", "m1", "c1", customType="ext",
          content=[{"type": "text", "text": "a\nb"}, {"type": "image"}, {"type": "text", "text": " c"}])
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


# ---------------------------------------------------------------------------------------------
# label times


@pytest.mark.parametrize(("stamp", "expected"), [
    ("2025-01-01T09:05:00.000Z", "09:05"),
    ("2025-03-04T23:59:00.000Z", "3/4 23:59"),
    ("2024-12-31T07:08:00.000Z", "24/12/31 07:08"),
    ("not a date", "aN/NaN/NaN NaN:NaN"),
])
def test_label_time_formats(stamp: str, expected: str) -> None:
    assert model(chain(2).session()).format_label_time(stamp) == expected


def test_label_time_is_local_time() -> None:
    east = timezone(timedelta(hours=14))
    m = model(chain(2).session(), tz=east)
    # 10:00 UTC on Jan 1 is already Jan 2 there; noon UTC is Jan 2 02:00 there: same day.
    assert m.format_label_time("2025-01-01T10:00:00.000Z") == "00:00"
    assert m.format_label_time("2025-01-01T09:00:00.000Z") == "1/1 23:00"


# ---------------------------------------------------------------------------------------------
# filters and selection


def ids(m: TreeModel) -> list[Any]:
    return [m.entry_id_at(i) for i in range(len(m))]


def test_filters_set_toggle_and_cycle() -> None:
    m = model(approaches().session(leaf="a6"))
    m.toggle_filter("no-tools")
    assert m.filter_mode == "no-tools" and "tr1" not in ids(m) and "be" in ids(m)
    m.toggle_filter("no-tools")
    assert m.filter_mode == "default"
    m.toggle_filter("user-only")
    m.toggle_filter("all")
    assert m.filter_mode == "all"
    m.set_filter("default")
    seen = []
    for _ in FILTERS:
        m.cycle_filter()
        seen.append(m.filter_mode)
    assert seen == ["no-tools", "user-only", "labeled-only", "all", "default"]
    m.cycle_filter(-1)
    assert m.filter_mode == "all"
    with pytest.raises(ValueError):
        m.set_filter("nope")


def test_selection_goes_to_nearest_visible_ancestor_and_stays_there() -> None:
    m = model(approaches().session(leaf="a6"))
    m.select("tr2")
    m.set_filter("user-only")
    assert m.selected_id == "u2"  # tr2's nearest user message above it, not the next one
    m.set_filter("default")
    assert m.selected_id == "u2"  # pi does not go back: the selection moved


def test_selection_falls_back_to_the_last_row_and_survives_an_empty_result() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="labeled-only")
    assert m.selected_id == "u2"
    m.set_query("zzz")
    assert len(m) == 0 and m.selected_id is None and m.status_text == "(0/0) [labeled]"
    assert render(m) == ["  No entries found", "  (0/0) [labeled]"]
    m.set_query("")
    assert m.selected_id == "u2"  # remembered while nothing was shown
    m.select("u3b")
    m.set_filter("user-only")
    m.select("u1")
    m.set_filter("labeled-only")  # u1 and its ancestors are not labelled: the last row
    assert m.selected_id == "u3b"


def test_initial_selection_of_a_hidden_leaf_is_its_visible_parent() -> None:
    b = approaches()
    m = model(b.session())  # the file's leaf is u4
    assert m.selected_id == "u4"
    m = model(b.session(leaf="l2"))
    assert m.selected_id == "a6"
    m = model(b.session(), selected_id="tl")
    assert m.selected_id == "a1"


# ---------------------------------------------------------------------------------------------
# search


def test_search_every_word_anywhere_any_case() -> None:
    m = model(approaches().session(leaf="a6"))
    m.type_text("APPROACH")
    assert ids(m) == ["u2", "a3", "u3b", "a7"]
    m.type_text(" b")
    assert ids(m) == ["u3b", "a7"]
    m.backspace()
    m.backspace()
    assert m.query == "APPROACH"
    m.set_query("checkpoint")  # labels are searched
    assert ids(m) == ["u2"]
    m.set_query("line 11")  # a tool result by its output, not by the call shown
    assert ids(m) == ["tr1"]
    m.set_query("read")
    assert "tr1" not in ids(m)
    m.set_filter("all")
    m.set_query("label alt")
    assert ids(m) == ["l2"]
    assert m.clear_query() and m.query == "" and not m.clear_query()


def test_search_lays_out_matches_as_a_tree() -> None:
    m = model(approaches().session(leaf="a6"))
    m.set_query("user:")  # matches nothing: "user" and the text are joined by a space
    assert len(m) == 0
    m.set_query("user")
    assert render(m) == golden("""
  • user: Hello, can you help me with this?
  ├⊟ • [checkpoint-1] user: Let's try approach A
› │     • user: That worked
  └⊟ [alt] user: Actually, approach B
        user: third branch from a6
  (3/5)
""")


def test_query_and_filter_changes_clear_folds() -> None:
    m = model(approaches().session(leaf="a6"))
    m.select("u3b")
    assert m.fold()
    m.type_text("a")
    assert not any(m.is_folded(i) for i in range(len(m)))
    m.select("u3b")
    m.fold()
    m.set_filter("no-tools")
    assert not any(m.is_folded(i) for i in range(len(m)))


# ---------------------------------------------------------------------------------------------
# folding and jumps


def test_fold_or_up_and_unfold_or_down_as_pi() -> None:
    m = model(approaches().session(leaf="a6"))
    assert m.selected_id == "a6"
    m.fold_or_up()  # not foldable: up to the start of its branch segment
    assert m.selected_id == "tr1"
    m.fold_or_up()  # a segment start: fold it
    assert m.is_folded(m.cursor) and len(m) == 9
    assert m.row(m.cursor).plain == "│  ├⊞ • [read: ~/x/file.ts:10-29]"
    m.fold_or_up()  # folded: up again
    assert m.selected_id == "u2"
    m.unfold_or_down()  # not folded: down to the first child of the next branch point
    assert m.selected_id == "tr1"
    m.unfold_or_down()  # folded: unfold
    assert len(m) == 17 and m.selected_id == "tr1"
    m.unfold_or_down()  # down the chain to its end
    assert m.selected_id == "a6"
    m.first()
    m.unfold_or_down()
    assert m.selected_id == "u2"


def test_fold_keeps_inner_folds_and_unfold_restores_rows() -> None:
    m = model(approaches().session(leaf="a6"))
    before = render(m)
    m.select("tr1")
    m.fold()
    m.select("u2")
    m.fold()
    assert ids(m) == ["u1", "a1", "u2", "u3b", "a7", "cp", "u4"]
    assert m.hidden_counts(2) == (10, 1)  # the rows the fold hides; a2, hidden by the filter
    m.unfold()
    assert ids(m)[:5] == ["u1", "a1", "u2", "tr1", "bs"]  # tr1 still folded
    m.select("tr1")
    m.unfold()
    m.select("a6")
    assert render(m) == before


def test_fold_swallowing_the_cursor_moves_it_to_the_fold() -> None:
    m = model(approaches().session(leaf="a6"))
    assert m.fold(m.row_of_id("u2"))
    assert m.selected_id == "u2"
    assert not m.fold(m.row_of_id("a3"))  # not a segment start (and not shown)
    assert not m.fold(m.row_of_id("u4"))  # no children


def test_hidden_counts_for_filters() -> None:
    m = model(approaches().session(leaf="a6"), filter_mode="user-only")
    m.select("u3")
    # a4, si, cu, cm, be, a5, tr3, a6, l1, l2 have u3 as their nearest shown ancestor
    assert m.hidden_counts(m.cursor) == (0, 10)


def test_jumps_beyond_pi() -> None:
    m = model(approaches().session(leaf="a6"))
    m.first()
    assert m.jump_to_leaf() and m.selected_id == "a6"
    assert m.jump_to_parent() and m.selected_id == "tr3"
    m.select("a3")
    assert m.next_sibling() and m.selected_id == "bs"  # the branch beside the one a3 is in
    assert m.next_sibling() and m.selected_id == "u3b"  # bs is the last there: one level up
    assert not m.next_sibling() and m.selected_id == "u3b"
    m.select("bs")
    assert m.next_sibling(-1) and m.selected_id == "tr1"
    assert not m.next_sibling(-1) and m.selected_id == "tr1"
    m.select("u4")
    assert m.next_sibling(-1) and m.selected_id == "cp"
    assert m.next_sibling(-1) and m.selected_id == "u2"  # no earlier sibling: one level up
    m.select("u2")
    assert m.jump_to_parent() and m.selected_id == "a1"
    m.first()
    assert m.next_label() and m.selected_id == "u2"
    assert m.next_label() and m.selected_id == "u3b"
    assert m.next_label() and m.selected_id == "u2"  # wraps
    assert m.next_label(-1) and m.selected_id == "u3b"


def test_cursor_moves_wrap_and_pages_clamp() -> None:
    m = model(approaches().session(leaf="a6"))
    m.first()
    m.up()
    assert m.cursor == len(m) - 1
    m.down()
    assert m.cursor == 0
    m.page_down(5)
    assert m.cursor == 5
    m.page_down(100)
    assert m.cursor == len(m) - 1
    m.page_up(3)
    assert m.cursor == len(m) - 4
    m.page_up(100)
    assert m.cursor == 0
    m.last()
    assert m.cursor == len(m) - 1


# ---------------------------------------------------------------------------------------------
# big and deep


def test_a_50000_deep_chain() -> None:
    m = model(chain(50_000).session())
    assert len(m) == 50_000 and m.cursor == 49_999
    assert m.row(49_999).plain == "• assistant: answer 49999"
    m.fold_or_up()  # no branch above: the root
    assert m.cursor == 0
    m.fold_or_up()
    assert len(m) == 1 and m.hidden_counts(0) == (49_999, 0)
    m.unfold_or_down()
    assert len(m) == 50_000
    m.unfold_or_down()
    assert m.cursor == 49_999
    m.set_filter("user-only")
    assert len(m) == 25_000 and m.selected_id == "n49998"
    m.set_query("question 4999")
    assert ids(m) == ["n49990", "n49992", "n49994", "n49996", "n49998"]
    assert m.row(1).plain == "• user: question 49992"  # five roots now, at column 0
    m.set_query("")
    assert m.jump_to_leaf() and m.selected_id == "n49998"


@pytest.mark.parametrize("name", ["cycle-2", "cycle-3", "cycle-self-leaf", "null-line", "message-null",
                                  "duplicate-header", "non-object-lines", "invalid-timestamps"])
def test_files_pi_cannot_show_still_show(name: str) -> None:
    """Cycles (pi never returns), lines pi throws on, duplicated entries: every row renders and
    every key works."""
    session = Session.load(str(FIXTURES / f"{name}.jsonl"))
    for mode in FILTERS:
        m = model(session, filter_mode=mode)
        assert all(isinstance(m.row(i).plain, str) for i in range(len(m)))
        for step in (m.fold_or_up, m.unfold_or_down, m.jump_to_leaf, m.jump_to_parent, m.next_sibling,
                     m.next_label, m.up, m.fold_or_up, m.unfold_or_down):
            step()
        m.set_query("e")
        m.toggle_label_times()
        assert all(isinstance(m.row(i).plain, str) for i in range(len(m)))


def test_cycle_entries_are_not_shown() -> None:
    m = model(Session.load(str(FIXTURES / "cycle-2.jsonl")), filter_mode="all")
    assert "e0000004" not in ids(m) and "e0000005" not in ids(m)


# ---------------------------------------------------------------------------------------------
# a growing session


def test_update_follows_the_leaf_and_keeps_the_view(tmp_path: Path) -> None:
    b = approaches()
    path = b.write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session)
    assert m.selected_id == "u4"
    m.select("u3b")
    m.toggle_label_times()
    m.select("u4")
    with path.open("ab") as f:
        f.write(orjson.dumps({"type": "message", "id": "a8", "parentId": "u4", "timestamp": _ts(90),
                              "message": {"role": "assistant", "content": [{"type": "text", "text": "more"}],
                                          "stopReason": "stop"}}) + b"\n")
    assert session.refresh() == 1
    assert m.update() and m.followed_leaf and m.selected_id == "a8"
    assert m.show_label_times
    # Elsewhere, the selection stays; folds and filter stay.
    m.select("tr1")
    m.fold()
    m.set_filter("no-tools")
    m.select("u2")
    m.fold()
    with path.open("ab") as f:
        f.write(orjson.dumps({"type": "message", "id": "u9", "parentId": "a8", "timestamp": _ts(91),
                              "message": {"role": "user", "content": "again"}}) + b"\n")
    session.refresh()
    assert not m.update() and not m.followed_leaf
    assert m.selected_id == "u2" and m.is_folded(m.cursor) and m.filter_mode == "no-tools"
    assert ids(m)[-4:] == ["a8", "u9", "cp", "u2"]  # the active branch (through u3b) comes first now


def test_update_moves_the_active_branch_first(tmp_path: Path) -> None:
    b = branching()
    path = b.write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session)
    assert ids(m)[4] == "u3b"
    with path.open("ab") as f:
        f.write(orjson.dumps({"type": "message", "id": "u5a", "parentId": "a4a", "timestamp": _ts(99),
                              "message": {"role": "user", "content": "back on A"}}) + b"\n")
    session.refresh()
    m.update()
    assert ids(m)[4] == "u3a" and ids(m)[8] == "u5a"


# ---------------------------------------------------------------------------------------------
# pi itself


# What pi cannot show, or shows wrongly, so there is nothing to compare: files it would
# overwrite or that make it throw; duplicated headers, whose repeated rows pi lays out with the
# values of one of the copies; and a self-parented entry, which pi's layout pass never reaches
# in the filter modes that show it (pitui shows it as the root it is).
NOT_COMPARABLE = {"foreign", "header-id-not-string", "v4-harness", "empty", "message-null", "null-line",
                  "duplicate-header"}
NOT_COMPARABLE_IN = {("self-parent", "all")}


def comparable_files() -> list[Path]:
    fixtures = [p for p in sorted(FIXTURES.glob("*.jsonl"))
                if p.stem not in NOT_COMPARABLE and "cycle" not in p.stem]
    return DEMO_SESSIONS + fixtures


def pitui_render(path: Path, mode: str, home: str, *, leaf: str | None = None, keys: list[str] = (),
                 label_times: bool = False) -> dict[str, Any]:
    session = Session.load(str(path))
    if leaf is not None:
        session.leaf_id = leaf
    m = TreeModel(session, filter_mode=mode, home=home, tz=UTC)
    for key in keys:
        {"\x1b[1;5D": m.fold_or_up, "\x1b[1;5C": m.unfold_or_down, "\x1b[A": m.up, "\x1b[B": m.down,
         "\x7f": m.backspace, "\x1b": m.clear_query}.get(key, lambda key=key: m.type_text(key))()
    if label_times:
        m.toggle_label_times()
    rows = [("› " if i == m.cursor else "  ") + m.row(i).plain for i in range(len(m))]
    return {"rows": rows, "status": m.status_text, "selected": m.cursor if rows else -1}


def test_rows_match_pi_in_every_filter_mode(oracle: Oracle) -> None:
    files = comparable_files()
    assert len(files) > 30
    requests = [{"file": str(path), "filter": mode, "width": 100_000, "home": "/home/user"}
                for path in files for mode in FILTERS if (path.stem, mode) not in NOT_COMPARABLE_IN]
    answers = oracle.tree(requests)
    assert len(answers) == len(requests)
    for request, answer in zip(requests, answers, strict=True):
        assert "error" not in answer, (request, answer)
        mine = pitui_render(Path(request["file"]), request["filter"], request["home"])
        assert mine == answer, (request["file"], request["filter"])


def test_random_sessions_and_keys_match_pi(oracle: Oracle, tmp_path: Path) -> None:
    """Generated sessions (branches, labels, every entry type, bad lines), each filter mode
    with a random run of folds, jumps, moves and searches."""
    import random

    from devkit.corpus import generate_session

    fold, unfold, up, down = "\x1b[1;5D", "\x1b[1;5C", "\x1b[A", "\x1b[B"
    rng = random.Random(7)
    requests = []
    for seed in range(30):
        path = tmp_path / f"s{seed}.jsonl"
        path.write_bytes(generate_session(seed, rng.randint(5, 300)))
        for mode in FILTERS:
            keys = rng.choice([
                [fold], [fold, fold], [up] * rng.randint(1, 30) + [fold, unfold],
                [down] * rng.randint(1, 30) + [fold, up, fold, unfold, unfold], ["e"], ["the", "\x7f"],
                [fold, fold, fold, "x", "\x1b"], [up] * rng.randint(1, 9) + [unfold, unfold, unfold],
            ])
            requests.append({"file": str(path), "filter": mode, "width": 100_000, "home": "/home/user",
                             "keys": keys})
    for request, answer in zip(requests, oracle.tree(requests), strict=True):
        mine = pitui_render(Path(request["file"]), request["filter"], request["home"], keys=request["keys"])
        assert mine == answer, request


def test_golden_session_matches_pi(oracle: Oracle, tmp_path: Path) -> None:
    """The reference's golden tree, with folds, jumps, search and label times as pi does them."""
    path = approaches().write(tmp_path / "approaches.jsonl")
    other = branching().write(tmp_path / "branching.jsonl")
    fold, unfold, up = "\x1b[1;5D", "\x1b[1;5C", "\x1b[A"
    scenarios = [
        (path, "a6", []), (path, "a6", [fold, fold, fold, fold]), (path, "a6", [fold, fold, up, up, up, fold]),
        (path, "a6", [unfold, unfold]), (path, None, ["a", "p", "p"]), (path, "a6", ["user", fold, "\x7f"]),
        (path, "l2", []), (other, None, [fold, fold, fold, unfold, unfold, unfold]),
        (other, "a4a", [up, up, up, up, up, up, up, up, up, up, fold, unfold, unfold]),
    ]
    requests, mine = [], []
    for file, leaf, keys in scenarios:
        for mode in FILTERS:
            for label_times in (False, True):
                request: dict[str, Any] = {"file": str(file), "filter": mode, "width": 100_000, "home": HOME,
                                           "keys": keys + (["T"] if label_times else [])}
                if leaf is not None:
                    request["leaf"] = leaf
                requests.append(request)
                mine.append(pitui_render(file, mode, HOME, leaf=leaf, keys=keys, label_times=label_times))
    # The labels were set in 2025: their times read the same on pi's clock and on this one.
    for request, answer, rendered in zip(requests, oracle.tree(requests), mine, strict=True):
        assert rendered == answer, request



def test_duplicated_ids_that_tie_the_tree_into_a_loop_still_lay_out(tmp_path: Path) -> None:
    """pi's getTree never returns on this file (A's second copy is a root, the first hangs under C,
    and C under B under A): the loop is cut where it closes, and every entry is shown once."""
    from devkit.builder import header, msg, write

    path = write(tmp_path / "loop.jsonl", header(),
                 msg("A", "C", n=1), msg("A", None, n=2), msg("B", "A", "assistant", n=3), msg("C", "B", n=4))
    session = Session.load(str(path))
    model = TreeModel(session, filter_mode="all")
    texts = [model.row(row).plain for row in range(len(model))]
    assert len(texts) == 3 and all("hi" in t for t in texts)
    model.fold_or_up()
    model.unfold_or_down()
    model.set_query("hi")
    assert len(model) == 3


APPENDS = [
    # (kind, fields) appended in a chain under the leaf: what pi writes on, and what pitui's
    # label and rename write.
    ("message", {"message": {"role": "assistant", "content": [{"type": "toolCall", "id": "k1", "name": "read",
                                                                "arguments": {"path": "/x"}}],
                             "stopReason": "toolUse"}}),
    ("message", {"message": {"role": "toolResult", "toolCallId": "k1", "toolName": "read",
                             "content": [{"type": "text", "text": "ok"}], "isError": False}}),
    ("label", {"targetId": "u1", "label": "grown"}),
    ("session_info", {"name": "grown name"}),
    ("message", {"message": {"role": "user", "content": "a question typed later"}}),
]


@pytest.mark.parametrize("build", [approaches, branching, lambda: chain(40)], ids=["approaches", "branching", "chain"])
@pytest.mark.parametrize("filter_mode", FILTERS)
@pytest.mark.parametrize(("appended", "one_by_one"), [(1, False), (2, True), (5, False), (5, True)])
@pytest.mark.parametrize("fold", [False, True], ids=["open", "folded"])
def test_an_append_below_the_leaf_is_spliced_in_as_a_fresh_build_lays_it_out(
        tmp_path: Path, monkeypatch, build: Any, filter_mode: str, appended: int, one_by_one: bool,
        fold: bool) -> None:
    path = build().write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session, filter_mode=filter_mode)
    folded = None
    for row in range(len(m) if fold else 0):  # a fold (the first that can be made), kept

        m.select_row(row)
        m.fold()
        if m.is_folded(m.cursor):
            folded = m.selected_id
            break
    parent = session.leaf_id
    builds: list[int] = []
    real_build = TreeModel._build
    monkeypatch.setattr(TreeModel, "_build", lambda self: builds.append(1) or real_build(self))
    # One update per entry (a textless assistant is the leaf for a while), or one for them all.
    batches = [[n] for n in range(appended)] if one_by_one else [list(range(appended))]
    for batch in batches:
        with path.open("ab") as handle:
            for n in batch:
                kind, fields = APPENDS[n]
                handle.write(orjson.dumps({"type": kind, "id": f"g{n}", "parentId": parent,
                                           "timestamp": _ts(200 + n), **fields}) + b"\n")
                parent = f"g{n}"
        assert session.refresh() == len(batch)
        m.update()
    assert builds == []  # spliced in, not built again
    monkeypatch.undo()
    fresh = model(Session.load(str(path)), filter_mode=filter_mode)
    if folded is not None:
        fresh.select(folded)
        fresh.fold()
    fresh.select(m.selected_id)
    assert render(m) == render(fresh)
    assert (m.selected_id, m.status_text) == (fresh.selected_id, fresh.status_text)
    m.jump_to_leaf()
    fresh.jump_to_leaf()
    assert (m.selected_id, render(m)) == (fresh.selected_id, render(fresh))


def test_an_append_that_is_not_below_the_leaf_builds_the_tree_again(tmp_path: Path) -> None:
    path = branching().write(tmp_path / "s.jsonl")
    session = Session.load(str(path))
    m = model(session)
    with path.open("ab") as handle:  # under an earlier entry: the active branch changes
        handle.write(orjson.dumps({"type": "message", "id": "x1", "parentId": "a2", "timestamp": _ts(300),
                                   "message": {"role": "user", "content": "elsewhere"}}) + b"\n")
    session.refresh()
    m.update()
    fresh = model(Session.load(str(path)), selected_id=m.selected_id)
    assert render(m) == render(fresh)
