"""The tree model against pi 1.6.0's own /tree navigator (the oracle's pi_tree.mjs), row for row,
on the demo sessions, the fixtures, generated sessions and sessions pi 1.6 wrote itself, in
every filter mode, after folds, moves and searches; with what Ctrl+X copies."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from helpers.tree_build import (
    DEMO_SESSIONS,
    FIXTURES,
    HOME,
    Build,
    approaches,
    branching,
    chain,
    model,
    render,
    ts,
)

from pitui.store.reader import Session
from pitui.store.tree import FILTERS, TreeModel
from pitui.store.tree.structure import TreeStructure

if TYPE_CHECKING:
    from devkit.oracle import Oracle

MISSING_ARG = object()  # an argument left out of a tool call


# ---------------------------------------------------------------------------------------------
# pi itself


# What pi cannot show, or shows wrongly, so there is nothing to compare: files pi 1.6 refuses
# as "not a valid pi session" (no valid header, a BOM or a no-break space before it: pi's B1) or
# that make it throw (a null message; a custom message with null content, on which its /tree
# throws); duplicated headers, whose repeated rows pi lays out with the values of one of the
# copies; and a self-parented entry, which pi's layout pass never reaches in the filter modes
# that show it (pitui shows it as the root it is). Files with a parentId cycle are never given
# to pi (it loops until it runs out of memory: pi's B4).
NOT_COMPARABLE = {
    "foreign",
    "header-id-not-string",
    "v4-harness",
    "bom",
    "b01-nbsp-start",
    "b02-cr-only",
    "b09-header-id-null",
    "b09-header-no-id",
    "message-null",
    "b13-message-null-off-path",
    "ctx-null-contents",
    "duplicate-header",
}
NOT_COMPARABLE_IN = {("self-parent", "all")}
# pi migrates v1 files with new random ids: the selected entry's id cannot be the same.
RANDOM_IDS = {"v1", "v1-index-shift", "v1-index-forward"}


def comparable_files() -> list[Path]:
    fixtures = [p for p in sorted(FIXTURES.glob("*.jsonl")) if p.stem not in NOT_COMPARABLE and "cycle" not in p.stem]
    return DEMO_SESSIONS + fixtures


def pitui_render(
    path: Path,
    mode: str,
    home: str,
    *,
    leaf: str | None = None,
    keys: list[str] = (),
    label_times: bool = False,
    copies: bool = False,
) -> dict[str, Any]:
    session = Session.load(str(path))
    if leaf is not None:
        session.leaf_id = leaf
    m = TreeModel(session, filter_mode=mode, home=home, tz=UTC)
    copied: list[str | None] = []
    for key in keys:
        {
            "\x1b[1;5D": m.fold_or_up,
            "\x1b[1;5C": m.unfold_or_down,
            "\x1b[A": m.up,
            "\x1b[B": m.down,
            "\x7f": m.backspace,
            "\x1b": m.clear_query,
            "\x18": lambda: copied.append(m.copy_text()),
        }.get(key, lambda key=key: m.type_text(key))()
    if label_times:
        m.toggle_label_times()
    rows = [("› " if i == m.cursor else "  ") + m.row(i).plain for i in range(len(m))]
    answer = {
        "rows": rows,
        "status": m.status_text,
        "selected": m.cursor if rows else -1,
        "selectedId": m.selected_id,
        "copied": copied,
    }
    if copies:
        cursor = m.cursor
        answer["copies"] = []
        for row in range(len(m)):
            m.select_row(row)
            answer["copies"].append(m.copy_text())
        m.select_row(cursor)
    return answer


def test_rows_match_pi_in_every_filter_mode(oracle: Oracle) -> None:
    """Every row, the status line, the initial selection and what Ctrl+X copies on each row."""
    files = comparable_files()
    assert len(files) > 30
    requests = [
        {"file": str(path), "filter": mode, "width": 100_000, "home": "/home/user", "copies": True}
        for path in files
        for mode in FILTERS
        if (path.stem, mode) not in NOT_COMPARABLE_IN
    ]
    answers = oracle.tree(requests)
    assert len(answers) == len(requests)
    for request, answer in zip(requests, answers, strict=True):
        assert "error" not in answer, (request, answer)
        mine = pitui_render(Path(request["file"]), request["filter"], request["home"], copies=True)
        if Path(request["file"]).stem in RANDOM_IDS:
            del mine["selectedId"], answer["selectedId"]
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
        path.write_bytes(with_pi16_entries(generate_session(seed, rng.randint(5, 300)), random.Random(seed)))
        for mode in FILTERS:
            keys = rng.choice(
                [
                    [fold],
                    [fold, fold],
                    [up] * rng.randint(1, 30) + [fold, unfold],
                    [down] * rng.randint(1, 30) + [fold, up, fold, unfold, unfold],
                    ["e"],
                    ["the", "\x7f"],
                    [fold, fold, fold, "x", "\x1b"],
                    [up] * rng.randint(1, 9) + [unfold, unfold, unfold],
                    [up] * rng.randint(1, 12) + [COPY, up, COPY],
                    ["context", COPY],
                    ["system", down, COPY],
                ]
            )
            requests.append({"file": str(path), "filter": mode, "width": 100_000, "home": "/home/user", "keys": keys})
    for request, answer in zip(requests, oracle.tree(requests), strict=True):
        mine = pitui_render(Path(request["file"]), request["filter"], request["home"], keys=request["keys"])
        assert mine == answer, request


COPY = "\x18"  # Ctrl+X


def with_pi16_entries(data: bytes, rng: Any) -> bytes:
    """A generated session with what pi 1.6 adds to its files spliced into its chains: ``usage``
    entries (often the leaf), ``context_edit`` entries (omit and replace) and ``system``
    messages, each put between an entry and its children, so that rows re-attach past them."""
    lines = data.split(b"\n")
    out: list[bytes] = []
    ids: list[str] = []
    moved: dict[str, str] = {}  # an entry's id -> the spliced entry its children now hang off
    for n, line in enumerate(lines):
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            out.append(line)
            continue
        if type(entry) is not dict or entry.get("type") == "session" or not isinstance(entry.get("id"), str):
            out.append(line)
            continue
        if entry.get("parentId") in moved:
            entry["parentId"] = moved[entry["parentId"]]
        out.append(orjson.dumps(entry))
        ids.append(entry["id"])
        if rng.random() < 0.25 or n == len(lines) - 2:
            kind = rng.choice(["usage", "usage", "omit", "replace", "system"])
            spliced = {"type": "usage" if kind == "usage" else "message", "id": f"p16-{n:05d}"}
            spliced |= {"parentId": entry["id"], "timestamp": entry.get("timestamp")}
            if kind == "usage":
                spliced |= {"kind": "cache_warm", "provider": "faux", "model": "faux-1", "usage": {"input": 1}}
            elif kind == "system":
                spliced["message"] = {"role": "system", "content": rng.choice(["", "You are pi."]), "timestamp": 1}
            else:
                target = rng.choice(ids)
                replacement = None if kind == "omit" else {"content": "[replaced]"}
                spliced = {**spliced, "type": "context_edit", "targetId": target, "replacement": replacement}
            out.append(orjson.dumps(spliced))
            moved[entry["id"]] = spliced["id"]
    return b"\n".join(out)


def test_sessions_pi_wrote_match_pi(oracle: Oracle, pi_written: list[Any]) -> None:
    """Sessions pi 1.6.0 wrote itself (system messages, usage entries and a usage leaf, context
    edits, compactions with a system checkpoint, branch summaries, labels): every filter mode,
    then folds, moves, searches and copies."""
    fold, unfold, up, down = "\x1b[1;5D", "\x1b[1;5C", "\x1b[A", "\x1b[B"
    runs = [[], [fold, fold], [up, up, up, fold, unfold], [up] * 4 + [COPY, down, COPY], ["system"], ["context"]]
    requests = [
        {"file": str(w.file), "filter": mode, "width": 100_000, "home": "/home/user", "keys": keys, "copies": True}
        for w in pi_written
        for mode in FILTERS
        for keys in runs
    ]
    types = {orjson.loads(line)["type"] for w in pi_written for line in w.file.read_bytes().splitlines()}
    assert {"usage", "context_edit", "compaction", "branch_summary", "label"} <= types
    for request, answer in zip(requests, oracle.tree(requests), strict=True):
        assert "error" not in answer, (request, answer)
        mine = pitui_render(
            Path(request["file"]), request["filter"], request["home"], keys=request["keys"], copies=True
        )
        assert mine == answer, request


READ_RANGES: list[tuple[Any, Any]] = [
    (MISSING_ARG, MISSING_ARG),
    (None, None),
    (10, 20),
    (None, 5),
    (7, None),
    ("12", "3"),
    (" 4 ", MISSING_ARG),
    ("", 2),
    ("x", 2),
    (1, "abc"),
    (True, 2),
    (1e400, 2),
    (0, 1),
    (1, 0),
    (-3, 2),
    (2.5, 1.25),
    ("0x10", "1e1"),
    ([], 1),
]
TOOL_PATHS = ["/home/me/x/file.ts", "/home/me", "/home/me/", "/home/me2/x", "/home/me/../me/a//b", "rel/p", "~/p", ""]


def test_tool_call_labels_match_pi(oracle: Oracle, tmp_path: Path) -> None:
    """pi 1.6's ``read`` line ranges (formatReadLineRange) and its home shortening of tool paths
    (shortenHomePath: within home only), on every kind of argument."""
    b = Build()
    parent = b.user("u", None, "go")
    calls: list[tuple[str, str, dict[str, Any]]] = []
    for n, (offset, limit) in enumerate(READ_RANGES):
        args = {"path": TOOL_PATHS[n % len(TOOL_PATHS)]}
        args |= {k: v for k, v in (("offset", offset), ("limit", limit)) if v is not MISSING_ARG}
        calls.append((f"r{n}", "read", args))
    for n, path in enumerate(TOOL_PATHS):
        calls += [(f"w{n}", "write", {"path": path}), (f"e{n}", "edit", {"file_path": path})]
        calls += [(f"g{n}", "grep", {"pattern": "x", "path": path}), (f"l{n}", "ls", {"path": path})]
        calls.append((f"f{n}", "find", {"pattern": "*.py", "path": path}))
    parent = b.assistant("a", parent, calls=calls)
    for call_id, name, _ in calls:
        parent = b.result(f"t{call_id}", parent, call_id, name)
    path = b.write(tmp_path / "tools.jsonl")
    requests = [{"file": str(path), "filter": mode, "width": 100_000, "home": HOME} for mode in ("default", "all")]
    for request, answer in zip(requests, oracle.tree(requests), strict=True):
        assert "error" not in answer, answer
        assert pitui_render(path, request["filter"], HOME) == answer


def test_golden_session_matches_pi(oracle: Oracle, tmp_path: Path) -> None:
    """The reference's golden tree, with folds, jumps, search and label times as pi does them."""
    path = approaches().write(tmp_path / "approaches.jsonl")
    other = branching().write(tmp_path / "branching.jsonl")
    fold, unfold, up = "\x1b[1;5D", "\x1b[1;5C", "\x1b[A"
    scenarios = [
        (path, "a6", []),
        (path, "a6", [fold, fold, fold, fold]),
        (path, "a6", [fold, fold, up, up, up, fold]),
        (path, "a6", [unfold, unfold]),
        (path, None, ["a", "p", "p"]),
        (path, "a6", ["user", fold, "\x7f"]),
        (path, "l2", []),
        (other, None, [fold, fold, fold, unfold, unfold, unfold]),
        (other, "a4a", [up, up, up, up, up, up, up, up, up, up, fold, unfold, unfold]),
    ]
    requests, mine = [], []
    for file, leaf, keys in scenarios:
        for mode in FILTERS:
            for label_times in (False, True):
                request: dict[str, Any] = {
                    "file": str(file),
                    "filter": mode,
                    "width": 100_000,
                    "home": HOME,
                    "keys": keys + (["T"] if label_times else []),
                }
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

    path = write(
        tmp_path / "loop.jsonl",
        header(),
        msg("A", "C", n=1),
        msg("A", None, n=2),
        msg("B", "A", "assistant", n=3),
        msg("C", "B", n=4),
    )
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
    (
        "message",
        {
            "message": {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": "k1", "name": "read", "arguments": {"path": "/x"}}],
                "stopReason": "toolUse",
            }
        },
    ),
    (
        "message",
        {
            "message": {
                "role": "toolResult",
                "toolCallId": "k1",
                "toolName": "read",
                "content": [{"type": "text", "text": "ok"}],
                "isError": False,
            }
        },
    ),
    ("label", {"targetId": "u1", "label": "grown"}),
    ("session_info", {"name": "grown name"}),
    ("message", {"message": {"role": "user", "content": "a question typed later"}}),
]


@pytest.mark.parametrize("build", [approaches, branching, lambda: chain(40)], ids=["approaches", "branching", "chain"])
@pytest.mark.parametrize("filter_mode", FILTERS)
@pytest.mark.parametrize(("appended", "one_by_one"), [(1, False), (2, True), (5, False), (5, True)])
@pytest.mark.parametrize("fold", [False, True], ids=["open", "folded"])
def test_an_append_below_the_leaf_is_spliced_in_as_a_fresh_build_lays_it_out(
    tmp_path: Path, monkeypatch, build: Any, filter_mode: str, appended: int, one_by_one: bool, fold: bool
) -> None:
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
    real_build = TreeStructure.build
    monkeypatch.setattr(TreeStructure, "build", lambda self: builds.append(1) or real_build(self))
    # One update per entry (a textless assistant is the leaf for a while), or one for them all.
    batches = [[n] for n in range(appended)] if one_by_one else [list(range(appended))]
    for batch in batches:
        with path.open("ab") as handle:
            for n in batch:
                kind, fields = APPENDS[n]
                handle.write(
                    orjson.dumps({"type": kind, "id": f"g{n}", "parentId": parent, "timestamp": ts(200 + n), **fields})
                    + b"\n"
                )
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
        handle.write(
            orjson.dumps(
                {
                    "type": "message",
                    "id": "x1",
                    "parentId": "a2",
                    "timestamp": ts(300),
                    "message": {"role": "user", "content": "elsewhere"},
                }
            )
            + b"\n"
        )
    session.refresh()
    m.update()
    fresh = model(Session.load(str(path)), selected_id=m.selected_id)
    assert render(m) == render(fresh)
