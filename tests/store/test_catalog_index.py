"""The full-text index the catalog fills by itself after a listing (``index_in_background``): it
ends up covering every listed session, searches give the same hits with it as without, a grown
file's new text is found, and closing the catalog stops the thread."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from pitui.store.catalog import Catalog
from pitui.store.catalog import index as index_mod

T0 = "2025-01-02T03:04:05.678Z"
# Phrases, and fuzzy tokens the index rules sessions out by: in the messages ("node"), in the
# cwd ("cve"), scattered over the name ("bnam") or cwd ("trkr") where the index cannot see them.
QUERIES = ['"node cve"', '"is great"', '"brave name"', '"cve-tracker"', '"zzz yyy"', '"br"', "brave", "node"]
QUERIES += ["cve", "bnam", "trkr", "node bnam", "great trkr", "nothing trkr", "discussed", "zzzz", "s1"]


def line(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"


def header(sid: str, cwd: str = "/home/me/proj") -> dict:
    return {"type": "session", "version": 3, "id": sid, "timestamp": T0, "cwd": cwd}


def msg(eid: str, role: str, content: object, ts: int) -> dict:
    message = {"role": role, "content": content, "timestamp": ts}
    return {"type": "message", "id": eid, "parentId": None, "timestamp": T0, "message": message}


def corpus(tmp_path: Path, sessions: int = 3) -> Path:
    folder = tmp_path / "agent" / "sessions" / "--p--"
    folder.mkdir(parents=True)
    texts = ["Brave is great", "bravery counts", "nothing"]
    for i in range(sessions):
        entries = [header(f"s{i}", "/srv/cve-tracker" if i == 2 else "/p"), msg("u", "user", texts[i % 3], 1000 + i)]
        if i == 0:
            entries.append(msg("a", "assistant", [{"type": "text", "text": "the node\n\n   cve was discussed"}], 1100))
        if i == 2:
            entries.append({"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": "Brave name"})
        (folder / f"{i:03d}.jsonl").write_text("".join(line(e) for e in entries), encoding="utf-8")
    return folder


def found(cat: Catalog) -> dict[str, list[str]]:
    return {q: sorted(h.info.id for h in cat.search(q)) for q in QUERIES}


def test_a_listing_fills_the_index_in_the_background(tmp_path):
    corpus(tmp_path, sessions=40)
    plain = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "plain"))
    expected = found(plain)
    assert plain.pending_index() == 40  # without the option nothing indexes
    plain.close()

    cat = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), index_in_background=True)
    assert cat.indexer is not None
    assert len(cat.list_all()) == 40
    assert cat.indexer.wait(timeout=60)
    assert cat.pending_index() == 0 and cat.indexer.error is None
    assert found(cat) == expected
    assert expected['"node cve"'] == ["s0"] and len(expected['"is great"']) == 14  # the searches find something
    assert expected["bnam"] == ["s2"] and expected["great trkr"] == [] and expected["nothing trkr"] == ["s2"]
    cat.close()


def test_text_appended_later_is_found_through_the_index(tmp_path):
    folder = corpus(tmp_path)
    cat = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), index_in_background=True)
    cat.list_all()
    assert cat.indexer is not None and cat.indexer.wait(timeout=60)
    assert found(cat)['"node cve"'] == ["s0"]
    with (folder / "001.jsonl").open("a") as f:
        f.write(line(msg("n", "user", "now the node cve too", 2500)))
    cat.list_all()
    assert cat.indexer.wait(timeout=60)
    assert cat.pending_index() == 0
    assert sorted(h.info.id for h in cat.search('"node cve"')) == ["s0", "s1"]
    cat.close()


def test_closing_the_catalog_stops_the_indexer(tmp_path, monkeypatch):
    """A step that is under way finishes; none starts after close (the thread is gone)."""
    corpus(tmp_path, sessions=6)
    entered, release = threading.Event(), threading.Event()
    build = index_mod.build_index
    steps: list[int] = []

    def slow_build(conn, deadline=None, batch=64, max_bytes=None):
        steps.append(1)
        entered.set()
        release.wait(timeout=60)
        return build(conn, deadline, 1, max_bytes)  # one session a step

    monkeypatch.setattr(index_mod, "build_index", slow_build)
    cat = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), index_in_background=True)
    cat.list_all()
    assert entered.wait(timeout=60)
    closer = threading.Thread(target=cat.close)
    closer.start()
    release.set()
    closer.join(timeout=60)
    assert not closer.is_alive()
    assert cat.indexer is not None and not cat.indexer.running
    assert len(steps) == 1
    cat.indexer.start()  # a listing after close starts nothing
    assert not cat.indexer.running


def test_an_indexer_error_leaves_searching_exact(tmp_path, monkeypatch):
    corpus(tmp_path)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(index_mod, "build_index", broken)
    cat = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), index_in_background=True)
    cat.list_all()
    assert cat.indexer is not None and cat.indexer.wait(timeout=60)
    assert isinstance(cat.indexer.error, OSError)
    assert found(cat)['"node cve"'] == ["s0"]
    cat.close()


def test_a_renamed_session_is_found_by_its_new_name_on_the_next_keystroke(tmp_path):
    # What a session's id, name and cwd hold is kept between searches; a rename must show.
    folder = corpus(tmp_path)
    cat = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), index_in_background=True)
    infos = cat.list_all()
    assert cat.indexer is not None and cat.indexer.wait(timeout=60)
    assert [h.info.id for h in cat.search('"zebra crossing"', scope=infos)] == []
    assert [h.info.id for h in cat.search('"brave name"', scope=infos)] == ["s2"]
    with (folder / "002.jsonl").open("a") as f:
        f.write(line({"type": "session_info", "id": "j", "parentId": None, "timestamp": T0, "name": "Zebra crossing"}))
    infos = cat.list_all()
    assert [h.info.id for h in cat.search('"zebra crossing"', scope=infos)] == ["s2"]
    assert [h.info.id for h in cat.search('"brave name"', scope=infos)] == []
    cat.close()
