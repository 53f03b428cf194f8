"""Entry search over the catalog: which messages match (checked against a plain scan of the
files), in which order, in which scope, as they come, and after a file has grown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from devkit.builder import TS_MS, header, msg, session_info, ts, write
from pitui.store.catalog import Catalog
from pitui.store.catalog.entry_search import EntrySearch
from pitui.store.paths import default_session_dir
from pitui.store.query import QueryError

CWD = "/home/me/proj"
OTHER = "/srv/other"

TEXTS = [
    ("user", "The WebSocket reconnect loop gives up after three tries"),
    ("assistant", "I looked at the reconnect  logic:\nthe backoff is capped"),
    ("user", "Straße und Größe: ÉCOLE café naïve"),
    ("assistant", "a b c: scattered letters"),
    ("user", "timeout=30 and time.monotonic() are fine"),
    ("assistant", "Nothing about sockets here"),
]


def _session(folder: Path, name: str, texts, start: int, cwd: str = CWD, title: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    objects = [header(cwd=cwd, id=f"sess-{name}", timestamp=ts(start))]
    parent = None
    for n, (role, text) in enumerate(texts):
        eid = f"{name}{n:04d}"[-8:]
        objects.append(msg(eid, parent, role, text, n=start + n))
        parent = eid
    if title:
        objects.append(session_info(f"{name}name"[-8:], parent, ts(start + len(texts)), title))
    return write(folder / f"{name}.jsonl", *objects)


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    agent = tmp_path / "agent"
    here = Path(default_session_dir(CWD, str(agent)))
    there = Path(default_session_dir(OTHER, str(agent)))
    _session(here, "aaaa", TEXTS, 0, title="Sockets")
    _session(here, "bbbb", [("user", "reconnect please"), ("assistant", "reconnected, websocket ok")], 100)
    _session(there, "cccc", [("user", "websocket reconnect elsewhere"), ("assistant", "done")], 50, cwd=OTHER)
    return agent


@pytest.fixture
def cat(tmp_path: Path, agent: Path):
    c = Catalog(agent_dir=str(agent), cache_dir=str(tmp_path / "cache"))
    yield c
    c.close()


def scan_files(paths, predicate) -> set[tuple[str, str]]:
    """(path, entry id) of every user/assistant message with text whose text passes ``predicate``,
    read from the files themselves."""
    found = set()
    for path in paths:
        for line in Path(path).read_text().splitlines():
            e = json.loads(line)
            m = e.get("message")
            if e.get("type") != "message" or m.get("role") not in ("user", "assistant"):
                continue
            c = m["content"]
            text = c if isinstance(c, str) else " ".join(b["text"] for b in c if b.get("type") == "text")
            if text and predicate(text):
                found.add((path, e["id"]))
    return found


def final(results):
    *_, last = results
    assert last.done
    return last


def found(cat: Catalog, query: str, infos=None, **kw) -> set[tuple[str, str]]:
    infos = cat.list_all() if infos is None else infos
    return {(h.info.path, h.entry_id) for h in final(EntrySearch(cat).search(query, infos, **kw)).hits}


def words(*needles):
    return lambda text: all(n.lower() in text.lower() for n in needles)


def phrase(p):
    return lambda text: p.lower() in " ".join(text.lower().split())


CASES = [
    ("websocket", words("websocket")),
    ("WEBSOCKET Reconnect", words("websocket", "reconnect")),
    ("reconn", words("reconn")),
    ('"reconnect logic"', phrase("reconnect logic")),  # two spaces in the text: whitespace runs are one
    ('"the backoff" capped', lambda t: phrase("the backoff")(t) and "capped" in t),
    ("abc", lambda t: False),  # only where the letters are together: "a b c" is not a hit
    ("scat", words("scat")),
    ("straße", words("straße")),
    ("GRÖSSE", lambda t: False),  # lower-casing, not case folding: ß is not ss (as in pi)
    ("größe école", words("größe", "école")),
    ("ÉCOLE", words("école")),
    ("re:time\\.mono", lambda t: re.search(r"time\.mono", t, re.I) is not None),
    ("re:^nothing", lambda t: re.search(r"^nothing", t, re.I) is not None),  # anchored to each message
    ("re:TRIES$", lambda t: re.search(r"tries$", t, re.I) is not None),
    ("socket here", words("socket", "here")),
    ("websocket done", lambda t: False),  # the words are in one session, never in one message
]


@pytest.mark.parametrize(("query", "predicate"), CASES, ids=[q for q, _ in CASES])
def test_hits_are_the_messages_a_scan_of_the_files_finds(cat, query, predicate):
    infos = cat.list_all()
    expected = scan_files([i.path for i in infos], predicate)
    assert found(cat, query, infos) == expected
    cat.build_index()  # the index only skips sessions: the same hits with it
    assert found(cat, query, infos) == expected


def test_a_hit_says_where_it_is_and_shows_the_match(cat):
    (hit,) = final(EntrySearch(cat).search('"reconnect logic"', cat.list(CWD))).hits
    assert hit.entry_id == "aaaa0001"
    assert hit.role == "assistant"
    assert hit.title == "Sockets"
    assert hit.info.cwd == CWD
    assert hit.time == TS_MS + 1000  # the message's own timestamp (second 1)
    start, end = hit.spans[0]
    assert hit.snippet[start:end] == "reconnect  logic"
    assert "\n" not in hit.snippet
    data = hit.to_json()
    assert data["entryId"] == "aaaa0001" and data["sessionId"] == "sess-aaaa" and data["time"].endswith("Z")


def test_scope_is_the_listing_given(cat):
    here = found(cat, "websocket", cat.list(CWD))
    everywhere = found(cat, "websocket", cat.list_all())
    assert {Path(p).stem for p, _ in here} == {"aaaa", "bbbb"}
    assert {Path(p).stem for p, _ in everywhere} == {"aaaa", "bbbb", "cccc"}


def test_newest_first(cat):
    hits = final(EntrySearch(cat).search("reconnect", cat.list_all())).hits
    times = [h.time for h in hits]
    assert times == sorted(times, reverse=True)
    assert [h.entry_id for h in hits][:2] == ["bbbb0001", "bbbb0000"]


def test_results_come_a_batch_at_a_time_and_stop_once_final(cat):
    infos = cat.list_all()
    steps = list(EntrySearch(cat).search("reconnect", infos, batch=1))
    assert [s.searched for s in steps] == [1, 2, 3]
    assert [len(s.hits) for s in steps] == [2, 3, 5]  # bbbb, then cccc, then aaaa
    assert [s.done for s in steps] == [False, False, True]
    limited = list(EntrySearch(cat).search("reconnect", infos, batch=1, limit=2))
    # the two newest are in the newest session; no older session can hold a newer message
    assert len(limited) == 1 and limited[0].done and limited[0].more and limited[0].searched == 1
    assert [h.entry_id for h in limited[0].hits] == [h.entry_id for h in steps[-1].hits[:2]]


def test_a_grown_file_is_searched_as_it_is_now(cat, agent):
    searcher = EntrySearch(cat)
    assert final(searcher.search("flamingo", cat.list(CWD))).hits == []
    path = Path(default_session_dir(CWD, str(agent))) / "bbbb.jsonl"
    with path.open("a") as f:
        f.write(json.dumps(msg("bbbb0009", "bbbb0001", "user", "a pink Flamingo", n=200)) + "\n")
    (hit,) = final(searcher.search("flamingo", cat.list(CWD))).hits  # listed again: the cache caught up
    assert hit.entry_id == "bbbb0009"
    assert scan_files([str(path)], words("flamingo")) == {(str(path), "bbbb0009")}


def test_bad_regex_and_empty_query(cat):
    infos = cat.list_all()
    with pytest.raises(QueryError):
        list(EntrySearch(cat).search("re:(", infos))
    assert final(EntrySearch(cat).search("   ", infos)).hits == []


def test_cancelled(cat):
    from pitui.store.catalog import SearchCancelled

    with pytest.raises(SearchCancelled):
        list(EntrySearch(cat).search("reconnect", cat.list_all(), cancelled=lambda: True))
