"""The conversation model (pitui.store.conversation): what the model sees on a path, as items.

Every kind of entry and message, compactions by both rules, totals, and the message sequence
compared with pi's own buildSessionContext (the oracle, pi 1.6.0) at every entry of every fixture and
demo session.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import with_leaf_at
from helpers.items import PI_ROLE

from devkit.builder import entry, header, msg, write
from pitui.store.conversation import (
    AssistantMessage,
    BashExecution,
    BranchSummary,
    CompactionSummary,
    CustomMessage,
    ImagePart,
    Item,
    OtherMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResult,
    Totals,
    Usage,
    UserMessage,
    context_items,
    item_from_message,
    path_totals,
    replaced_items,
    session_totals,
    totals,
)
from pitui.store.js import MISSING, Opaque
from pitui.store.model import NotASessionError
from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
DEMO = REPO / "pitui" / "demo" / "sessions"

PNG = base64.b64encode(bytes(range(256)) * 48 + b"12345").decode()  # 12,293 bytes decoded


def usage(inp: int, out: int, read: int = 0, written: int = 0, cost: float = 0.0, *, total: bool = True) -> dict:
    u: dict[str, Any] = {"input": inp, "output": out, "cacheRead": read, "cacheWrite": written}
    if total:
        u["totalTokens"] = inp + out + read + written
    u["cost"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}
    return u


def load(path: Path) -> Session:
    return Session.load(str(path))


@pytest.fixture
def every_kind(tmp_path: Path) -> Session:
    """One path through every kind of entry and message."""
    return load(
        write(
            tmp_path / "kinds.jsonl",
            header(),
            entry("model_change", "m0000001", None, 0, provider="anthropic", modelId="claude-x"),
            msg(
                "u0000001",
                "m0000001",
                "user",
                n=1,
                content=[
                    {"type": "text", "text": "look at this"},
                    {"type": "image", "data": PNG, "mimeType": "image/png"},
                ],
            ),
            msg(
                "a0000001",
                "u0000001",
                "assistant",
                n=2,
                content=[
                    {"type": "thinking", "thinking": "let me see\nsecond line", "thinkingSignature": "sig"},
                    {"type": "thinking", "thinking": "", "redacted": True},
                    {"type": "text", "text": "I'll **read** it."},
                    {"type": "toolCall", "id": "call1", "name": "read", "arguments": {"path": "src/app.py"}},
                ],
                usage=usage(10, 20, 300, 40, 0.25),
                stopReason="toolUse",
            ),
            msg("t0000001", "a0000001", "toolResult", "boom", n=3, toolCallId="call1", toolName="read", isError=True),
            {
                "type": "message",
                "id": "b0000001",
                "parentId": "t0000001",
                "timestamp": "2025-01-01T00:00:04.000Z",
                "message": {
                    "role": "bashExecution",
                    "command": "ls -la",
                    "output": "a\nb\n",
                    "exitCode": 2,
                    "cancelled": False,
                    "truncated": True,
                    "fullOutputPath": "/tmp/out.txt",
                    "excludeFromContext": True,
                    "timestamp": 1735689604000,
                },
            },
            entry("custom_message", "c0000001", "b0000001", 5, customType="todo", content="remember", display=False),
            entry("custom", "x0000001", "c0000001", 6, customType="ext.state", data={"a": 1}),
            entry("label", "l0000001", "x0000001", 7, targetId="u0000001", label="start"),
            entry(
                "branch_summary",
                "s0000001",
                "l0000001",
                8,
                fromId="l0000001",
                summary="tried another way",
                usage=usage(1, 2, cost=0.5),
            ),
            entry("branch_summary", "s0000002", "s0000001", 9, fromId="s0000001", summary=""),
            msg(
                "a0000002",
                "s0000002",
                "assistant",
                n=10,
                content=[{"type": "text", "text": "sorry"}],
                usage=usage(5, 6, 7, 8, 0.125, total=False),
                stopReason="error",
                errorMessage="overloaded",
            ),
            msg("d0000001", "a0000002", "developer", n=11, content="be brief"),
            msg("u0000002", "d0000001", "user", n=12, content=None),
            entry(
                "custom_message",
                "c0000002",
                "u0000002",
                13,
                customType="pic",
                display=True,
                content=[{"type": "text", "text": "see"}, {"type": "image", "data": "QUJD", "mimeType": "image/gif"}],
            ),
        )
    )


def test_every_kind_of_message(every_kind: Session) -> None:
    items = context_items(every_kind)
    assert [type(i) for i in items] == [
        UserMessage,
        AssistantMessage,
        ToolResult,
        BashExecution,
        CustomMessage,
        BranchSummary,
        AssistantMessage,
        OtherMessage,
        UserMessage,
        CustomMessage,
    ]
    assert [i.entry_id for i in items] == [
        "u0000001",
        "a0000001",
        "t0000001",
        "b0000001",
        "c0000001",
        "s0000001",
        "a0000002",
        "d0000001",
        "u0000002",
        "c0000002",
    ]
    user, assistant, result, bash, custom, branch, failed, other, empty, pictures = items

    assert user.parts == (TextPart("look at this"), ImagePart("image/png", 12_293))

    assert assistant.parts == (
        ThinkingPart("let me see\nsecond line"),
        ThinkingPart("", redacted=True),
        TextPart("I'll **read** it."),
        ToolCallPart("call1", "read", {"path": "src/app.py"}),
    )
    assert assistant.parts[3].arguments_json == '{"path":"src/app.py"}'
    assert (assistant.provider, assistant.model, assistant.stop_reason) == ("anthropic", "claude-x", "toolUse")
    assert assistant.usage == Usage(10, 20, 300, 40, 370, 0.25)

    assert (result.tool_name, result.tool_call_id, result.is_error, result.output) == ("read", "call1", True, "boom")

    assert bash == BashExecution(
        "b0000001",
        "ls -la",
        "a\nb\n",
        exit_code=2,
        cancelled=False,
        truncated=True,
        excluded=True,
        full_output_path="/tmp/out.txt",
    )

    assert (custom.custom_type, custom.parts, custom.display) == ("todo", (TextPart("remember"),), False)

    assert (branch.summary, branch.from_id) == ("tried another way", "l0000001")
    assert branch.usage == Usage(1, 2, 0, 0, 3, 0.5)

    assert (failed.stop_reason, failed.error_message) == ("error", "overloaded")
    assert failed.usage == Usage(5, 6, 7, 8, 26, 0.125), "no totalTokens (old files): the sum"

    assert (other.role, other.parts) == ("developer", (TextPart("be brief"),))
    assert empty.parts == (), "content null is no content"
    assert pictures.parts == (TextPart("see"), ImagePart("image/gif", 3))


def test_the_path_ends_at_the_entry_asked_for(every_kind: Session) -> None:
    assert [i.entry_id for i in context_items(every_kind, "t0000001")] == ["u0000001", "a0000001", "t0000001"]
    assert context_items(every_kind, "m0000001") == [], "a model change shows nothing"
    assert context_items(every_kind, None) == [], "pi: leaf null, nothing"


def test_totals_count_every_model_call_once(every_kind: Session) -> None:
    items = context_items(every_kind)
    expected = Totals(
        Usage(10, 20, 300, 40, 370, 0.25) + Usage(1, 2, 0, 0, 3, 0.5) + Usage(5, 6, 7, 8, 26, 0.125),
        assistant_messages=2,
    )
    assert totals(items) == expected
    assert path_totals(every_kind) == expected
    assert path_totals(every_kind, "t0000001") == Totals(Usage(10, 20, 300, 40, 370, 0.25), 1)
    assert path_totals(every_kind, None) == Totals()
    assert session_totals(every_kind) == expected


def test_session_totals_count_every_branch(tmp_path: Path) -> None:
    session = load(
        write(
            tmp_path / "branches.jsonl",
            header(),
            msg("u1", None, "user", n=1),
            msg("a1", "u1", "assistant", n=2, usage=usage(1, 1, cost=1.0)),
            msg("a2", "u1", "assistant", n=3, usage=usage(2, 2, cost=2.0)),
        )
    )
    assert path_totals(session).usage.cost == 2.0
    assert path_totals(session, "a1").usage.cost == 1.0
    assert session_totals(session) == Totals(Usage(3, 3, 0, 0, 6, 3.0), 2)


def test_compaction_keeps_from_first_kept_entry() -> None:
    session = load(FIXTURES / "compaction-first-kept.jsonl")
    items = context_items(session)
    assert [i.entry_id for i in items] == [
        "e0000009",
        "e0000005",
        "e0000006",
        "e0000007",
        "e0000008",
        "e0000010",
        "e0000011",
    ]
    compaction = items[0]
    assert isinstance(compaction, CompactionSummary)
    assert compaction.summary == "## Goal\nGet the tests green."
    assert compaction.tokens_before == 48210
    assert compaction.replaced_ids == ("e0000003", "e0000004") and compaction.replaced_count == 2
    replaced = replaced_items(session, "e0000009")
    assert [(type(i), i.entry_id) for i in replaced] == [(UserMessage, "e0000003"), (AssistantMessage, "e0000004")]
    assert replaced[0].parts == (TextPart("Question 1"),)


def test_a_retained_tail_is_carried_along_not_read() -> None:
    """No released pi reads ``retainedTail``: the kept range is ``firstKeptEntryId``'s."""
    session = load(FIXTURES / "compaction-retained-tail.jsonl")
    items = context_items(session)
    assert [i.entry_id for i in items] == ["e0000007", "e0000005", "e0000006", "e0000008", "e0000009"]
    raw = json.loads((FIXTURES / "compaction-retained-tail.jsonl").read_text().splitlines()[7])
    tail_text = raw["retainedTail"][0]["content"][0]["text"]
    shown = [p.text for i in items for p in getattr(i, "parts", ()) if isinstance(p, TextPart)]
    assert tail_text not in shown


def test_a_retained_tail_gives_no_model_call(tmp_path: Path) -> None:
    answer = msg("a1", "u1", "assistant", n=2, usage=usage(1, 1, cost=1.0))
    session = load(
        write(
            tmp_path / "tail.jsonl",
            header(),
            msg("u1", None, "user", n=1),
            answer,
            entry("compaction", "c1", "a1", 3, summary="s", tokensBefore=9, retainedTail=[answer["message"]]),
        )
    )
    items = context_items(session)
    assert [type(i) for i in items] == [CompactionSummary], "no firstKeptEntryId: nothing before it is kept"
    assert totals(items) == Totals()
    assert path_totals(session) == Totals(Usage(1, 1, 0, 0, 2, 1.0), 1)


def test_an_empty_retained_tail_changes_nothing() -> None:
    session = load(FIXTURES / "compaction-retained-tail-empty.jsonl")
    assert [i.entry_id for i in context_items(session)] == ["e0000007", "e0000005", "e0000006", "e0000008", "e0000009"]


def test_two_compactions_replaced_entries_nest() -> None:
    session = load(FIXTURES / "compaction-two.jsonl")
    items = context_items(session)
    assert [i.entry_id for i in items] == ["e0000012", "e0000010", "e0000011", "e0000013", "e0000014"]
    second = items[0]
    assert isinstance(second, CompactionSummary) and second.summary == "Second summary."
    # Just before it the model saw: the first summary, e5..e6 (kept by it), e8, e9.
    assert second.replaced_ids == ("e0000007", "e0000005", "e0000006", "e0000008", "e0000009")
    first = replaced_items(session, "e0000012")[0]
    assert isinstance(first, CompactionSummary) and first.summary == "First summary."
    assert first.replaced_ids == ("e0000003", "e0000004")
    assert [i.entry_id for i in replaced_items(session, "e0000007")] == ["e0000003", "e0000004"]
    assert replaced_items(session, "e0000013") == [], "not a compaction"
    assert replaced_items(session, "nope") == []


def test_branch_summary_in_its_place() -> None:
    session = load(FIXTURES / "branch-summary.jsonl")
    items = context_items(session)
    assert [type(i).__name__ for i in items] == [
        "UserMessage",
        "AssistantMessage",
        "BranchSummary",
        "UserMessage",
        "AssistantMessage",
        "UserMessage",
        "AssistantMessage",
    ]
    summary = items[2]
    assert isinstance(summary, BranchSummary) and summary.summary and summary.from_id


def test_custom_messages_with_string_and_block_content() -> None:
    items = context_items(load(FIXTURES / "custom.jsonl"))
    customs = [i for i in items if isinstance(i, CustomMessage)]
    assert len(customs) == 2
    assert customs[0].display and [type(p) for p in customs[0].parts] == [TextPart]
    assert not customs[1].display and [type(p) for p in customs[1].parts] == [TextPart, ImagePart]


def test_unreadable_message_is_an_item_not_a_crash() -> None:
    items = context_items(load(FIXTURES / "message-null.jsonl"))
    assert any(isinstance(i, OtherMessage) and i.role == "(unreadable message)" for i in items)


def test_odd_field_types_are_tolerated(tmp_path: Path) -> None:
    session = load(
        write(
            tmp_path / "odd.jsonl",
            header(),
            msg(
                "a1",
                None,
                "assistant",
                n=1,
                content=[
                    {"type": "toolCall", "name": 7, "arguments": [1, "x"]},
                    {"type": "text", "text": None},
                    "junk",
                    {"type": "weird"},
                ],
                usage={"input": True, "output": 1.5, "cost": 3},
                provider=None,
                model=["m"],
            ),
            {
                "type": "message",
                "id": "b1",
                "parentId": "a1",
                "timestamp": "2025-01-01T00:00:02.000Z",
                "message": {"role": "bashExecution", "command": None, "exitCode": "1"},
            },
        )
    )
    assistant, bash = context_items(session)
    assert assistant.parts == (ToolCallPart("", "7", [1, "x"]), TextPart(""))
    assert assistant.usage == Usage(0, 1, 0, 0, 1, 0.0)
    assert (assistant.provider, assistant.model) == ("", '["m"]')
    assert (bash.command, bash.output, bash.exit_code) == ("", "", None)


def test_images_are_placeholders_without_their_data(every_kind: Session) -> None:
    image = context_items(every_kind)[0].parts[1]
    assert image == ImagePart("image/png", len(base64.b64decode(PNG)))
    assert not hasattr(image, "data")


def test_a_long_path_decodes_each_line_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    objects: list[Any] = [header()]
    parent = None
    for i in range(2000):
        eid = f"{i:08x}"
        objects.append(msg(eid, parent, "user" if i % 2 == 0 else "assistant", f"text {i}", n=i))
        parent = eid
    session = load(write(tmp_path / "long.jsonl", *objects))
    source = session.source
    assert source is not None
    reads = 0
    original = source.entry_at

    def counting(e: Any) -> dict[str, Any]:
        nonlocal reads
        reads += 1
        return original(e)

    monkeypatch.setattr(source, "entry_at", counting)
    items = context_items(session)
    assert len(items) == 2000 and items[-1].parts == (TextPart("text 1999"),)
    assert reads == 2000


# ----------------------------------------------------------------------------------------------
# against pi: the context messages at every entry

NOT_FOR_PI = ("cycle",)  # pi 0.73.1 never returns on these
PART = {TextPart: "text", ThinkingPart: "thinking", ToolCallPart: "toolCall", ImagePart: "image"}


def _ours(item: Item) -> dict[str, Any]:
    """An item in the shape of the oracle's digest of a context message, so far as items carry it."""
    out: dict[str, Any] = {"role": item.role if isinstance(item, OtherMessage) else PI_ROLE[type(item)]}
    parts = getattr(item, "parts", ())
    out["parts"] = [PART[type(p)] for p in parts]
    if len(parts) == 1 and isinstance(parts[0], TextPart):
        out["text"] = parts[0].text
    if isinstance(item, CompactionSummary | BranchSummary):
        out["summary"] = item.summary
    if isinstance(item, BranchSummary):
        out["fromId"] = item.from_id
    if isinstance(item, CustomMessage):
        out["customType"] = item.custom_type
    if isinstance(item, ToolResult):
        out["toolCallId"] = item.tool_call_id
    if isinstance(item, BashExecution):
        out["command"] = item.command
    return out


def _theirs(digest: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """pi's digest in the same shape: string content is one text part; unknown blocks are dropped."""
    out = {"role": digest.get("role")}
    if isinstance(digest.get("text"), str):
        out["parts"] = ["text"]
    else:
        out["parts"] = [b for b in digest.get("blocks", []) if b in PART.values()]
    if "text" in ours or isinstance(digest.get("text"), str):
        out["text"] = digest.get("text", ours.get("text"))
    for key in ("summary", "fromId", "customType", "toolCallId", "command"):
        if key in ours:
            value = digest.get(key)
            out[key] = value if isinstance(value, str) or key == "fromId" else ""
    return out


def _files() -> list[Path]:
    files = sorted(FIXTURES.glob("*.jsonl")) + sorted(DEMO.glob("*/*.jsonl"))
    return [f for f in files if not any(word in f.name for word in NOT_FOR_PI)]


def _ids_regenerated(session: Session) -> bool:
    """pi gives every entry of a v1 file (``version ?? 1`` < 2) a new random id."""
    version = session.original_version
    return version is MISSING or version is None or (isinstance(version, int | float) and version < 2)


def test_items_match_pis_context_at_every_entry(oracle: Oracle, tmp_path: Path) -> None:
    """pi's buildSessionContext at each entry (through a label probe under it) against our items."""
    points: list[tuple[Path, Session, Any, Path]] = []
    for number, path in enumerate(_files()):
        try:
            session = load(path)
        except NotASessionError:
            continue
        if session.header is None:
            continue
        data = path.read_bytes()
        if _ids_regenerated(session):
            leaves = [session.leaf_id]  # pi gives a v1 file new random ids: only its own leaf compares
        else:
            leaves = [e.id for e in session.entries if isinstance(e.id, str) and e.id != "ffff0000"]
        for leaf in dict.fromkeys(leaves):
            if leaf is None or isinstance(leaf, Opaque):
                continue
            probe = tmp_path / f"{number}-{len(points)}.jsonl"
            probe.write_bytes(data if leaf == session.leaf_id and len(leaves) == 1 else with_leaf_at(data, leaf))
            points.append((path, session, leaf, probe))
    assert len(points) > 500
    found = oracle.open_many(p for *_, p in points)
    compared = 0
    for path, session, leaf, probe in points:
        pi = found[str(probe)]
        if set(pi) == {"error"}:
            continue  # pi cannot load it (a null message on the path, a self-parent, ...)
        ours = [_ours(i) for i in context_items(session, leaf)]
        theirs = [_theirs(d, o) for d, o in zip(pi["context"]["messages"], ours, strict=False)]
        assert len(ours) == len(pi["context"]["messages"]), f"{path.name} at {leaf}"
        assert ours == theirs, f"{path.name} at {leaf}"
        compared += 1
    assert compared > 500, compared


def test_an_entry_whose_type_is_an_array_is_no_replaced_message() -> None:
    """The compaction of type-array.jsonl replaced a user message and an entry whose ``type`` is
    ``["message"]``: only the message is shown as replaced (the other is no message to pi)."""
    session = Session.load(str(FIXTURES / "type-array.jsonl"))
    compaction = next(e for e in session.entries if e.type == "compaction")
    replaced = replaced_items(session, compaction.id)
    assert [type(item).__name__ for item in replaced] == ["UserMessage"]


def test_a_token_count_javascript_holds_as_infinity_counts_as_none() -> None:
    """totals-odd-numbers.jsonl's first reply has an input of 10**400 (JSON.parse: Infinity): its
    usage shows the other counts, and that one as 0, rather than failing to draw."""
    session = Session.load(str(FIXTURES / "totals-odd-numbers.jsonl"))
    reply = next(e for e in session.entries if e.type == "message" and e.role == "assistant")
    item = item_from_message(reply.read_data()["message"], reply.id)
    assert (item.usage.input, item.usage.output, item.usage.cache_read, item.usage.cache_write) == (0, 5, 6, 7)
    assert item.usage.cost == 0.5
    infinite = item_from_message({"role": "assistant", "content": [], "usage": {"input": math.inf}}, "x")
    assert infinite.usage.input == 0
