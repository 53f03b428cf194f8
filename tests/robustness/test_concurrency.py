"""Concurrency with real processes: pitui's writers and a pi-like writer on the same file, and
listings while other processes write, create and trash session files.

Nothing here measures time: the processes run a fixed amount of work each, interleaved by the
machine as it likes, and the checks are on what is in the files at the end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers.trash import trash_dir

from devkit.builder import header, linear, lines, msg
from pitui.store.catalog import Catalog
from pitui.store.reader import Session
from pitui.store.write.trash import move_to_trash

TIMEOUT = 120  # a hung child fails the test instead of hanging it

# A pitui process: labels, renames and branches through pitui.store.write.actions, in a loop. An
# action that finds the file changed under it (pi appended meanwhile) is tried again, as the
# UI does; it prints the ids of the entries it wrote.
PITUI_WRITER = textwrap.dedent("""
    import json, random, sys
    from pitui.store.write import actions
    from pitui.store.model import FileChangedError

    path, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    targets = ["a0000000", "a0000001", "a0000002", "a0000003"]
    written, retries = [], 0
    for i in range(count):
        kind = rng.choice(["label", "clear", "rename", "branch", "summary"])
        for _attempt in range(1000):
            try:
                if kind == "label":
                    written.append(actions.set_label(path, rng.choice(targets), f"w{seed}-{i}"))
                elif kind == "clear":
                    written.append(actions.set_label(path, rng.choice(targets), None))
                elif kind == "rename":
                    written.append(actions.rename(path, f"name {seed}-{i}"))
                else:
                    result = actions.branch(path, rng.choice(targets), f"summary {i}" if kind == "summary" else None)
                    if result.entry_id is not None:
                        written.append(result.entry_id)
                break
            except FileChangedError:
                retries += 1
        else:
            sys.exit("the file never stayed still long enough to write")
    print(json.dumps(written))
    print(retries, file=sys.stderr)
""")

# pi: whole message lines, each one os.write on an O_APPEND descriptor, at least `least` of
# them and on until told to stop (at most `most`), with a pause between lines as a model has:
# a writer that never pauses would leave pitui's writers no moment to write in.
PI_WRITER = textwrap.dedent("""
    import json, os, sys, time
    path, stop, least, most = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    parent, written, n = "a0000003", [], 0
    while n < least or (n < most and not os.path.exists(stop)):
        entry_id = f"p{n:07d}"
        line = {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T01:00:00.000Z",
                "message": {"role": "assistant" if n % 2 else "user", "content": "x" * (n % 300),
                            "timestamp": 1735693200000 + n}}
        os.write(fd, json.dumps(line, separators=(",", ":")).encode() + b"\\n")
        written.append(entry_id)
        parent, n = entry_id, n + 1
        time.sleep(0.01)
    os.close(fd)
    print(json.dumps(written))
""")


def run(script: str, *args: Any, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def finish(proc: subprocess.Popen[str]) -> Any:
    out, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err
    return json.loads(out)


def test_pitui_and_pi_writing_the_same_file_lose_nothing(tmp_path: Path, oracle_073: Any):
    path = linear(tmp_path / "s.jsonl")
    stop = tmp_path / "stop"
    pi = run(PI_WRITER, path, stop, 300, 3000)
    writers = [run(PITUI_WRITER, path, seed, 100) for seed in (1, 2)]
    try:
        pitui_ids = [finish(w) for w in writers]
    finally:
        stop.touch()
    pi_ids = finish(pi)

    rows = path.read_bytes().split(b"\n")
    assert rows[-1] == b"", "the file ends with a whole line"
    parsed = [orjson.loads(row) for row in rows[:-1]]  # every line parses
    ids = [row.get("id") for row in parsed[1:]]
    assert len(ids) == len(set(ids)), "no entry written twice"
    everything = set(ids)
    for written in [*pitui_ids, pi_ids]:
        assert written and set(written) <= everything
    assert len(ids) == 4 + sum(map(len, pitui_ids)) + len(pi_ids), "nothing else in the file"
    # pi's own chain is whole and in order: no line of it was lost or torn.
    assert [i for i in ids if i.startswith("p")] == pi_ids
    # The writers did write at the same time: pitui's entries fall between pi's lines.
    first_pi, last_pi = ids.index(pi_ids[0]), ids.index(pi_ids[-1])
    assert any(first_pi < ids.index(i) < last_pi for w in pitui_ids for i in w)

    session = Session.load(str(path))
    assert session.problems == [] and session.leaf_id == ids[-1]
    seen = oracle_073.open(path)
    assert seen["leafId"] == ids[-1] and [e[0] for e in seen["entryIds"]] == ids
    assert seen["labels"] == {k: v for k, v in session.labels.items()} and seen["name"] == session.name


# A process that keeps the folder busy: appends messages to its sessions (as pi does), creates new
# ones (pi's exclusive create, header and first entries in one write), and trashes some.
BUSY = textwrap.dedent("""
    import json, os, random, sys
    from pitui.store.write import actions
    folder, seed, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    def entry(eid, parent, n):
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": "2025-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": f"hello {n}", "timestamp": 1735689600000 + n}}
    def line(obj):
        return json.dumps(obj, separators=(",", ":")).encode() + b"\\n"
    mine, trashed, created = [], [], []
    for n in range(rounds):
        what = rng.random()
        if what < 0.3 or not mine:
            sid = f"w{seed}-{n}"
            path = os.path.join(folder, f"{sid}.jsonl")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, line({"type": "session", "version": 3, "id": sid, "timestamp": "2025-01-01T00:00:00.000Z",
                               "cwd": "/p"}) + line(entry("a0000000", None, n)))
            os.close(fd)
            mine.append(path)
            created.append(sid)
        elif what < 0.45:
            path = mine.pop(rng.randrange(len(mine)))
            actions.trash(path)
            trashed.append(os.path.basename(path))
        else:
            fd = os.open(rng.choice(mine), os.O_WRONLY | os.O_APPEND)
            os.write(fd, line(entry(f"b{n:07d}", "a0000000", n)))
            os.close(fd)
    print(json.dumps({"created": created, "trashed": trashed}))
""")

# A file seen between its creation and its first write is empty: pi skips it too.
ALLOWED = {"the file vanished while listing", "not a session file: no line parses as JSON"}


def test_listing_while_others_write_create_and_trash(tmp_path: Path):
    folder = tmp_path / "--p--"
    folder.mkdir()
    for i in range(20):
        (folder / f"s{i}.jsonl").write_bytes(lines(header(id=f"s{i}"), msg("a0000000", None, text=f"start {i}")))
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    busy = [run(BUSY, folder, seed, 150, env=env) for seed in (1, 2)]
    cached = Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "cache"), workers=0)
    listings = 0
    try:
        while listings < 3 or any(p.poll() is None for p in busy):
            infos = cached.list_dir(str(folder))
            listings += 1
            for info in infos:  # every listed row is a real session file: the one named after it
                assert os.path.basename(info.path) == f"{info.id}.jsonl"
                assert info.message_count >= 1 and info.first_message.startswith(("start", "hello"))
            for problem in cached.problems:
                assert problem.reason in ALLOWED, problem
    finally:
        done = [finish(p) for p in busy]
    # Once the folder is still, the cached listing is exactly a fresh one, and holds every file.
    final = cached.list_dir(str(folder))
    cached.close()
    with Catalog(agent_dir=str(tmp_path / "agent"), cache_dir=str(tmp_path / "fresh"), workers=0) as fresh:
        assert [(i.path, i.message_count, i.first_message) for i in final] == [
            (i.path, i.message_count, i.first_message) for i in fresh.list_dir(str(folder))
        ]
    trashed = {name for d in done for name in d["trashed"]}
    expected = {f"s{i}" for i in range(20)} | {sid for d in done for sid in d["created"]}
    assert {i.id for i in final} == {sid for sid in expected if f"{sid}.jsonl" not in trashed}
    assert trashed and trashed <= set(os.listdir(tmp_path / "data" / "Trash" / "files"))


def test_trashing_while_another_process_makes_the_trash_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """send2trash makes the trash's folders when it finds them missing; another process trashing
    at the same moment can make them between its check and its mkdir (seen in the test above).
    Nothing is moved at that point, and trying again finds them there."""
    plat_other = pytest.importorskip("send2trash.plat_other")
    real = plat_other.check_create
    raced: list[bytes] = []

    def racing(folder: bytes) -> None:
        if not raced:
            raced.append(folder)
            os.makedirs(folder, 0o700, exist_ok=True)  # the other process, first
            raise FileExistsError(17, "File exists", folder)
        real(folder)

    monkeypatch.setattr(plat_other, "check_create", racing)
    path = linear(tmp_path / f"s-{tmp_path.name}.jsonl")
    move_to_trash(str(path))
    assert raced and not path.exists() and (trash_dir() / "files" / path.name).exists()
