"""Sessions built entry by entry for the tree model's tests, and the model's rows as text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from pitui.store.reader import Session
from pitui.store.tree import TreeModel

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


def ts(n: int) -> str:
    return (BASE + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


class Build:
    """Entries with readable ids, each a second after the previous one."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [
            {"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": HOME}
        ]

    def add(self, kind: str, eid: str, parent: str | None, **fields: Any) -> str:
        self.lines.append({"type": kind, "id": eid, "parentId": parent, "timestamp": ts(len(self.lines)), **fields})
        return eid

    def message(self, eid: str, parent: str | None, role: str, **fields: Any) -> str:
        return self.add("message", eid, parent, message={"role": role, **fields})

    def user(self, eid: str, parent: str | None, text: str) -> str:
        return self.message(eid, parent, "user", content=text)

    def assistant(
        self,
        eid: str,
        parent: str | None,
        text: str | None = None,
        *,
        calls: list[Any] = (),
        stop: str = "stop",
        **fields: Any,
    ) -> str:
        content: list[Any] = [{"type": "thinking", "thinking": "hmm"}]
        if text is not None:
            content.append({"type": "text", "text": text})
        content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
        return self.message(
            eid, parent, "assistant", content=content, stopReason="toolUse" if calls else stop, **fields
        )

    def result(self, eid: str, parent: str | None, call: str, tool: str, output: str = "ok") -> str:
        return self.message(
            eid,
            parent,
            "toolResult",
            toolCallId=call,
            toolName=tool,
            content=[{"type": "text", "text": output}],
            isError=False,
        )

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
    b.assistant(
        "a2",
        "u2",
        calls=[
            ("c1", "read", {"path": f"{HOME}/x/file.ts", "offset": 10, "limit": 20}),
            ("c2", "bash", {"command": "ls -la && echo something very long that goes beyond fifty characters"}),
        ],
    )
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


def ids(m: TreeModel) -> list[Any]:
    return [m.entry_id_at(i) for i in range(len(m))]
