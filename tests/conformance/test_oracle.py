"""The oracle runner itself (tests/oracle/pi_session.mjs): it must never touch the files it is
given, and must report a file pi cannot load instead of hanging or inventing a session."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from devkit.oracle import Oracle

HEADER_V3 = '{"type":"session","version":3,"id":"s-v3","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
USER = (
    '{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:0{n}.000Z",'
    '"message":{{"role":"user","content":"hi {n}","timestamp":{n}}}}}\n'
)


def _user(entry_id: str, parent: str | None, n: int) -> str:
    return USER.format(id=entry_id, parent="null" if parent is None else f'"{parent}"', n=n)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    contents = {
        "v3.jsonl": HEADER_V3 + _user("aaaaaaaa", None, 1) + _user("bbbbbbbb", "aaaaaaaa", 2),
        # no dates anywhere: pi lists it with the file's modification time
        "v1.jsonl": '{"type":"session","id":"s-v1","timestamp":"bad","cwd":"/p"}\n'
        '{"type":"message","message":{"role":"user","content":"x"}}\n',
        "cycle.jsonl": HEADER_V3.replace("s-v3", "s-cycle")
        + _user("aaaaaaaa", "bbbbbbbb", 1)
        + _user("bbbbbbbb", "aaaaaaaa", 2),
        "garbage.jsonl": "not json\n",
        "empty.jsonl": "",
    }
    out = {}
    for name, text in contents.items():
        out[name] = tmp_path / name
        out[name].write_text(text, encoding="utf-8")
    return out


def _snapshot(paths: dict[str, Path]) -> dict[str, tuple[bytes, int]]:
    return {name: (p.read_bytes(), p.stat().st_mtime_ns) for name, p in paths.items()}


def test_open_many_reports_each_file_and_touches_none(oracle_073: Oracle, files: dict[str, Path]) -> None:
    before = _snapshot(files)
    result = oracle_073.open_many(files.values())
    assert _snapshot(files) == before, "the oracle must only give pi copies"
    assert list(result) == [str(p) for p in files.values()]
    v3 = result[str(files["v3.jsonl"])]
    assert v3["leafId"] == "bbbbbbbb" and v3["branch"] == ["aaaaaaaa", "bbbbbbbb"]
    assert v3["tree"] == {"roots": ["aaaaaaaa"], "children": {"aaaaaaaa": ["bbbbbbbb"]}}
    assert [m["text"] for m in v3["context"]["messages"]] == ["hi 1", "hi 2"]
    v1 = result[str(files["v1.jsonl"])]
    assert v1["header"]["version"] == 3 and len(v1["entryIds"]) == 1
    assert "cycle" in result[str(files["cycle.jsonl"])]["error"]
    for name in ("garbage.jsonl", "empty.jsonl"):
        assert result[str(files[name])]["error"].startswith("not a pi session")


def test_open_is_open_many_of_one(oracle_073: Oracle, files: dict[str, Path]) -> None:
    path = files["v3.jsonl"]
    assert oracle_073.open(path) == oracle_073.open_many([path])[str(path)]
    with pytest.raises(oracle_073.Error, match="not a pi session"):
        oracle_073.open(files["garbage.jsonl"])


def test_list_reads_a_copy_and_names_the_originals(oracle_073: Oracle, files: dict[str, Path]) -> None:
    folder = files["v3.jsonl"].parent
    os.utime(files["v1.jsonl"], (1_700_000_000, 1_700_000_000))
    before = _snapshot(files)
    infos = oracle_073.list(folder, "/p")
    assert _snapshot(files) == before
    by_id = {info["id"]: info for info in infos}
    assert set(by_id) == {"s-v3", "s-v1", "s-cycle"}
    assert by_id["s-v3"]["path"] == str(files["v3.jsonl"])
    assert by_id["s-v3"]["messageCount"] == 2 and by_id["s-v3"]["firstMessage"] == "hi 1"
    assert by_id["s-v1"]["created"] is None, "an invalid date is null, not an error"
    assert by_id["s-v1"]["modified"] == "2023-11-14T22:13:20.000Z", "the copy keeps the mtime"


def test_dir_is_pis_folder_for_a_cwd(oracle_073: Oracle, tmp_path: Path) -> None:
    assert oracle_073.dir("/home/me/proj", tmp_path) == str(tmp_path / "sessions" / "--home-me-proj--")
    assert oracle_073.dir("C:\\Users\\me", tmp_path).endswith("--C--Users-me--")
