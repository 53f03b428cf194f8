"""Big files are read in blocks, never held whole: the session read must be exactly the one a
read of the whole file gives (entries, problems, line numbers, leaf, torn last line, labels),
wherever the blocks end."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers.mixed_session import make_entry as _entry
from helpers.mixed_session import mixed_lines as _lines
from helpers.mixed_session import signature as _signature

from pitui.store import blocks as blocks_mod
from pitui.store import tuning
from pitui.store.model import LineSource, NotASessionError, ReadCancelled
from pitui.store.reader import Session


def _whole(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 1 << 62)
    try:
        return _signature(Session.load(str(path)))
    except NotASessionError:
        return "not a session"


def _in_blocks(path: Path, monkeypatch: pytest.MonkeyPatch, block: int, *, expect_blocks: bool = True) -> Any:
    monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 0)
    monkeypatch.setattr(tuning, "READ_BLOCK_BYTES", block)
    results: list[Any] = []
    load = blocks_mod.load_in_blocks

    def spy(*args: Any) -> Any:
        result = load(*args)
        results.append(result)
        return result

    monkeypatch.setattr("pitui.store.reader.load_in_blocks", spy)
    try:
        read: Any = _signature(Session.load(str(path)))
    except NotASessionError:
        read = "not a session"
    assert results, "the block reader was not asked"
    assert (results[0] is not None) == expect_blocks
    return read


@pytest.mark.parametrize("block", [64, 997, 4096, 1 << 16])
def test_same_as_the_whole_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(3000)) + b"\n")
    whole = _whole(path, monkeypatch)
    assert _in_blocks(path, monkeypatch, block) == whole
    assert len(whole[0]) > 2000 and whole[1]  # entries, and problems (bad lines, duplicate ids)


@pytest.mark.parametrize(
    "tail",
    [b'{"type":"message","id":"torn', b'{"type":"message","id":"torn"}', b"\n \n\t", b"\r\n  \n", b"}\n}\n"],
)
def test_last_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: bytes) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(800)) + b"\n" + tail)
    assert _in_blocks(path, monkeypatch, 333) == _whole(path, monkeypatch)


def test_lines_longer_than_a_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _lines(300)
    long = json.dumps(_entry(90000, "0000012c", message={"role": "user", "content": "y" * 5000})).encode()
    lines[1:1] = [long]  # the first block holds no whole line after the header's
    lines.insert(150, long.replace(b"90000", b"90001"))
    lines.insert(151, b"   " + long.replace(b"90000", b"90002") + b"  \xe2\x80\xa8")  # whitespace JSON.parse refuses
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert _in_blocks(path, monkeypatch, 512) == _whole(path, monkeypatch)


def test_what_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Old versions (migrated whole), and a file whose start is not a plain header line."""
    lines = _lines(400)
    for head in (
        b'{"type":"session","id":"x","timestamp":"t"}',
        b'{"type":"session","version":2,"id":"x"}',
        "\ufeff".encode() + lines[0],
        b" " + lines[0],
        b"garbage",
    ):
        path = tmp_path / "s.jsonl"
        path.write_bytes(b"\n".join([head, *lines[1:]]) + b"\n")
        assert _in_blocks(path, monkeypatch, 256, expect_blocks=False) == _whole(path, monkeypatch)


def test_following_the_file_after_a_block_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(900)) + b"\n" + b'{"type":"message","id":"tor')
    monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 0)
    monkeypatch.setattr(tuning, "READ_BLOCK_BYTES", 700)
    s = Session.load(str(path))
    assert s.torn_line
    with path.open("ab") as f:
        f.write(b'n","parentId":null}\n' + json.dumps(_entry(99999, "torn")).encode() + b"\n")
    assert s.refresh() == 2
    assert _signature(s)[:9] == _whole(path, monkeypatch)[:9]


@pytest.mark.parametrize("at_call", [2, 3, 9])
def test_a_file_that_shrinks_while_read_in_blocks_is_left_to_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at_call: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(900)) + b"\n")
    size = path.stat().st_size
    monkeypatch.setattr(tuning, "READ_BLOCK_BYTES", 700)
    real, calls = os.pread, 0

    def pread(fd: int, length: int, offset: int) -> bytes:
        nonlocal calls
        calls += 1
        if calls == at_call:
            os.truncate(path, size // 2 + 11)  # mid-line
        return real(fd, length, offset)

    fd = os.open(path, os.O_RDONLY)
    source = LineSource(str(path), fd)  # closes the descriptor
    try:
        monkeypatch.setattr(blocks_mod.os, "pread", pread)
        assert blocks_mod.load_in_blocks(Session, fd, str(path), source, size) is None
    finally:
        monkeypatch.undo()
        source.close()
    assert calls > at_call


def test_a_read_in_blocks_is_given_up_when_its_reader_no_longer_wants_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cancelled`` is asked before each block after the first: True gives the read up there
    (a quitting app does not wait for the rest of a 1 GB file); never True, the read is whole."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(_lines(3000)) + b"\n")
    monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 0)
    monkeypatch.setattr(tuning, "READ_BLOCK_BYTES", 4096)
    asked: list[int] = []

    def after_three() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(ReadCancelled):
        Session.load(str(path), cancelled=after_three)
    assert len(asked) == 4  # three blocks read after the first, then given up
    whole = _whole(path, monkeypatch)
    monkeypatch.setattr(tuning, "BLOCKS_MIN_BYTES", 0)
    assert _signature(Session.load(str(path), cancelled=lambda: False)) == whole
