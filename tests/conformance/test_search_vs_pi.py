"""pitui's listing and /resume search against pi 1.6.0's own, query by query.

``tests/oracle/pi_search.mjs`` lists a folder with pi 1.6.0's ``SessionManager.listAll(DIR)``
and runs pi's ``filterAndSortSessions`` (``session-selector-search.js``) for each query and sort
mode; pitui must list the same sessions with the same fields in the same order, and find the
same sessions in the same order with the same scores. Folders: the fixtures, the demo sessions
and a generated corpus.

Where pitui differs on purpose: it lists files that start with a UTF-8 BOM (pi 1.6 does not,
pi-1.6.md B1), and a session whose header id is not a string makes pi's search throw on every
query (``session.id.toLowerCase``), so pi_search.mjs leaves such sessions out of pi's search and
names them; pitui searches them by ``String(id)``.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

from devkit.corpus import write_corpus
from devkit.oracle import ORACLE_DIR
from pitui.store.catalog import Catalog
from pitui.store.query import QueryError

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
DEMO = REPO / "pitui" / "demo" / "sessions"
SEARCH_SCRIPT = ORACLE_DIR / "pi_search.mjs"
MODES = ("threaded", "recent", "relevance")

FIXED_QUERIES = [
    "hello",
    "auth",
    "rfctr",
    "fix bug",
    '"fix the"',
    '"unbalanced',
    "re:h.llo",
    "re:^[a-z]+$",
    "re:(",  # invalid: no results in pi; pitui raises QueryError, which shows nothing
    "re:",
    "cache",
    "cch",
    "weather",
    "home",
    "projects/weather",
    "019",
    "1024",
    "units imperial",
    '"--units imperial"',
    "ab12",
    "é",
    "😀",
    "ΣΑΣ",
    "İ",
    "x y z",
    "tmp",
    "-",
    "/",
]


@pytest.fixture(scope="module")
def pi16(oracle) -> tuple[str, Path]:
    """The node binary and the pi 1.6.0 package folder of the oracle."""
    return oracle.node, Path(oracle.package)


def pi_search(pi16: tuple[str, Path], folder: Path, queries: list[str], name_filter: str = "all") -> dict:
    node, package = pi16
    request = json.dumps({"queries": queries, "modes": list(MODES), "nameFilter": name_filter})
    proc = subprocess.run(
        [node, str(SEARCH_SCRIPT), str(folder)],
        input=request.encode(),
        capture_output=True,
        env={**os.environ, "PI_PKG": str(package)},
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)


def pitui_lists_otherwise(data: bytes) -> bool:
    """True for a file where pitui's listing differs from pi 1.6.0's on purpose."""
    first = data[:3].decode("utf-8", errors="ignore")[:1]
    return (
        (first != "" and first.isspace() and first not in " \t\r\n")
        or first == "\ufeff"
        or b"\r" in data.replace(b"\r\n", b"")
    )


def compare(tmp_path: Path, pi: dict, folder: Path, name_filter: str = "all") -> None:
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), workers=1) as cat:
        listed = cat.list_dir(str(folder))
        mine = [info.to_json() for info in listed]
        # Where pitui lists on purpose what pi 1.6.0 gets wrong (pi-1.6.md §6): a file that starts
        # with a BOM or other Unicode space (B1: pi does not list it) and a raw CR inside a line
        # (B2: pi's listing splits the line there, its opening does not; pitui lists what opens).
        differs = {str(f) for f in folder.glob("*.jsonl") if pitui_lists_otherwise(f.read_bytes())}
        # the listing: every field, in pi's order
        assert [row for row in mine if row["path"] not in differs] == [
            row for row in pi["sessions"] if row["path"] not in differs
        ]
        crashing = set(pi["crashing"])
        scope = [info for info in listed if info.path not in differs and info.path not in crashing]
        for result in pi["results"]:
            query, mode = result["query"], result["mode"]
            try:
                hits = cat.search(query, scope=scope, mode=mode, name_filter=name_filter, snippets=0)
            except QueryError:
                hits = []
            got = [(hit.info.path, hit.score) for hit in hits]
            want = [hit for hit in zip(result["paths"], result["scores"], strict=True) if hit[0] not in differs]
            assert got == want, (query, mode)


def test_fixtures_list_and_search_as_in_pi(tmp_path, pi16):
    pi = pi_search(pi16, FIXTURES, FIXED_QUERIES + words_of(FIXTURES, 40, seed=1))
    assert pi["piVersion"] == "1.6.0"
    compare(tmp_path, pi, FIXTURES)


@pytest.mark.parametrize("project", sorted(p.name for p in DEMO.iterdir()) if DEMO.is_dir() else [])
def test_demo_sessions_list_and_search_as_in_pi(tmp_path, pi16, project):
    folder = DEMO / project
    compare(tmp_path, pi_search(pi16, folder, FIXED_QUERIES + words_of(folder, 60, seed=2)), folder)


def test_demo_sessions_named_filter_as_in_pi(tmp_path, pi16):
    folder = DEMO / "--home-user-projects-weatherapp--"
    queries = ["", "cache", "units", "re:e", "x"]
    compare(tmp_path, pi_search(pi16, folder, queries, "named"), folder, "named")


def test_generated_corpus_lists_and_searches_as_in_pi(tmp_path, pi16):
    folder = tmp_path / "corpus"
    write_corpus(folder, 120, seed=7)
    pi = pi_search(pi16, folder, FIXED_QUERIES + words_of(folder, 120, seed=3))
    compare(tmp_path, pi, folder)


T0 = "2025-01-02T03:04:05.678Z"


def _write(path: Path, *entries: object, raw: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries) + raw)


def _header(sid: object, cwd: object = "/home/me/proj", ts: object = T0, **extra: object) -> dict:
    return {"type": "session", "version": 3, "id": sid, "timestamp": ts, "cwd": cwd, **extra}


def _msg(eid: str, role: str, content: object, ts: object = None, entry_ts: str = "2025-01-02T03:05:00.000Z") -> dict:
    message: dict = {"role": role, "content": content}
    if ts is not None:
        message["timestamp"] = ts
    return {"type": "message", "id": eid, "parentId": None, "timestamp": entry_ts, "message": message}


def test_edge_cases_list_as_in_pi(tmp_path, pi16):
    folder = tmp_path / "agent" / "sessions" / "--home-me-proj--"
    name = {"type": "session_info", "id": "i", "parentId": None, "timestamp": T0, "name": " Named "}
    _write(
        folder / "a.jsonl",
        _header("a"),
        _msg("u", "user", "hello", ts=1735787100000),
        _msg("x", "assistant", [{"type": "text", "text": "hi"}], ts=1735787200000),
        name,
    )
    _write(
        folder / "b.jsonl",
        _header("b", parentSession=str(folder / "a.jsonl")),
        _msg("u", "user", [{"type": "text", "text": "array"}], entry_ts="2025-03-01T00:00:00.000Z"),
    )
    _write(folder / "c.jsonl", _header("c", ts="bad"))
    os.utime(folder / "c.jsonl", ns=(1_700_000_000_123_456_789,) * 2)
    _write(folder / "d.jsonl", _msg("u", "user", "no header"))
    _write(folder / "e.jsonl", None, _header("e"), None, False, 0, "")  # falsy lines: skipped
    _write(folder / "f.jsonl", _header("f"), _msg("u", "user", "torn"), raw='{"type":"message","id":"t')
    bom = json.dumps(_header("g"), separators=(",", ":")).encode()
    (folder / "g.jsonl").write_bytes(b"\xef\xbb\xbf" + bom + b"\xff\xfe bad utf8\n")  # pitui only
    _write(
        folder / "h.jsonl", _header("h"), {"type": "session_info", "name": "x"}, {"type": "session_info", "name": ""}
    )
    _write(folder / "i.jsonl", _header("i", ts="2025-01-02"), _msg("u", "user", "x", ts=-1))
    _write(folder / "j.jsonl", _header(7, cwd=5), _msg("u", "toolResult", "ignored", ts=99999999999999))
    for n in range(3):  # same modified: file name order decides
        _write(folder / f"tie{n}.jsonl", _header(f"tie{n}", ts="2025-01-01T00:00:00.000Z"))
    pi = pi_search(pi16, folder, ["hello", "re:x", "7"])
    assert str(folder / "g.jsonl") not in {row["path"] for row in pi["sessions"]}
    assert pi["crashing"] == [str(folder / "j.jsonl")]
    compare(tmp_path, pi, folder)


_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


def words_of(folder: Path, count: int, seed: int) -> list[str]:
    """Queries made from the sessions' own text: words, typos (vowels left out, letters
    swapped), phrases of two words, a prefix of an id, a part of a cwd, a regex."""
    rng = random.Random(seed)
    words: list[str] = []
    ids: list[str] = []
    cwds: list[str] = []
    for path in sorted(folder.glob("*.jsonl")):
        for raw in path.read_bytes().decode("utf-8", "replace").splitlines()[:200]:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("type") == "session":
                if isinstance(entry.get("id"), str):
                    ids.append(entry["id"])
                if isinstance(entry.get("cwd"), str):
                    cwds.extend(part for part in entry["cwd"].split("/") if part)
            message = entry.get("message")
            if isinstance(message, dict):
                words.extend(_WORD.findall(json.dumps(message.get("content"), ensure_ascii=False)))
            if isinstance(entry.get("name"), str):
                words.extend(_WORD.findall(entry["name"]))
    words = sorted(set(words)) or ["none"]
    out: list[str] = []
    for _ in range(count):
        kind = rng.randrange(7)
        word = rng.choice(words)
        if kind == 0:
            out.append(word)
        elif kind == 1 and len(word) > 3:
            out.append(word[0] + re.sub("[aeiou]", "", word[1:]))  # rfctr
        elif kind == 2 and len(word) > 3:
            i = rng.randrange(len(word) - 1)
            out.append(word[:i] + word[i + 1] + word[i] + word[i + 2 :])
        elif kind == 3:
            out.append(f'"{word} {rng.choice(words)}"')
        elif kind == 4 and ids:
            out.append(rng.choice(ids)[: rng.randint(3, 12)])
        elif kind == 5 and cwds:
            out.append(rng.choice(cwds))
        else:
            out.append(f"re:{re.escape(word[:4])}|{re.escape(rng.choice(words)[:3])}")
        if rng.random() < 0.25:
            out[-1] += " " + rng.choice(words)[:5].upper()
    return out
