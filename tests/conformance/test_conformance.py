"""pitui against pi 1.6.0 itself: what ``pitui inspect --json`` reports must be what pi's own
SessionManager loads (the oracle, ``tests/oracle``), for every fixture, every demo session and a
generated corpus. What pitui writes is checked against pi in test_pi_writes.py.

Comparison rules (tests/helpers/conformance.py): the whole JSON must be equal, context digests
and projection included, except that ids of v1 files (pi gives their entries new random ids when
it migrates them) are compared by position. The only expected differences are the files pi
1.6.0 fails on and pitui reads (a UTF-8 BOM, a ``message`` entry without a message, a
``context_edit`` without ``replacement``, a name that is not a string): there pitui's ``pi``
list must name pi's error. An empty file, which pi fills with a fresh header, pitui does not read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import (
    COMPARED_FILES,
    Inspected,
    check_against_pi,
    compare,
    file_id,
    first_difference,
    inspect_all,
    pi_error,
    pi_refuses,
    pi_views,
    rel_path,
)

from devkit.corpus import generate_session

if TYPE_CHECKING:
    from devkit.oracle import Oracle


# ----------------------------------------------------------------------------------------------
# every fixture and demo session


@pytest.fixture(scope="module")
def pi_reports(oracle: Oracle) -> dict[Path, Any]:
    return pi_views(oracle, COMPARED_FILES)


@pytest.fixture(scope="module")
def pitui_reports(pitui_env: dict[str, str]) -> dict[Path, Inspected]:
    return inspect_all(pitui_env, COMPARED_FILES)


@pytest.mark.parametrize("path", COMPARED_FILES, ids=file_id)
def test_inspect_matches_pi(path: Path, pi_reports: dict[Path, Any], pitui_reports: dict[Path, Inspected]) -> None:
    diff = check_against_pi(path, pitui_reports[path], pi_reports[path])
    assert diff is None, f"{rel_path(path)}: {diff}"


# ----------------------------------------------------------------------------------------------
# a generated corpus (devkit/corpus.py)

CORPUS_SIZES = (1, 2, 3, 4, 6, 9, 14, 22, 35, 55, 90, 150, 250, 400, 700, 1200, 2500)
CORPUS_FILES = 150


def test_generated_corpus_matches_pi(oracle: Oracle, pitui_env: dict[str, str], tmp_path: Path) -> None:
    files: list[Path] = []
    for seed in range(CORPUS_FILES):
        n = CORPUS_SIZES[seed % len(CORPUS_SIZES)] + seed // len(CORPUS_SIZES)
        files.append(tmp_path / f"corpus-{seed:03d}-{n}.jsonl")
        files[-1].write_bytes(generate_session(seed, n))
    pis = pi_views(oracle, files)
    mine = inspect_all(pitui_env, files)
    problems, not_loaded = [], []
    for path in files:
        pi = pis[path]
        error = pi_error(pi)
        if error is not None and not pi_refuses(error):
            not_loaded.append(f"{path.name}: {error}")
        diff = check_against_pi(path, mine[path], pi)
        if diff:
            problems.append(f"{path.name}: {diff}")
    assert len(not_loaded) < len(files) // 2, "pi loads few corpus files:\n" + "\n".join(not_loaded)
    shown = "\n".join(problems[:12])
    assert not problems, f"{len(problems)} of {len(files)} generated sessions differ from pi:\n{shown}"


# ----------------------------------------------------------------------------------------------
# unit checks of the comparison itself


def test_first_difference_reports_the_first_differing_field() -> None:
    pi = {"a": [1, 2, {"b": "x"}], "c": True}
    assert first_difference({"a": [1, 2, {"b": "x"}], "c": True}, pi) is None
    assert first_difference({"a": [1, 2, {"b": "y"}], "c": True}, pi) == '.a[2].b: pitui "y" != pi "x"'
    assert first_difference({"a": [1, 2, {"b": "x"}], "c": 1}, pi) == ".c: pitui 1 != pi true"
    assert first_difference({"a": [1, 2], "c": True}, pi).startswith(".a: pitui has 2 items, pi 3")
    assert first_difference({"a": [1.0, 2, {"b": "x"}], "c": True}, pi) is None
    assert first_difference({"c": True}, pi).startswith(".a: missing in pitui")


def test_v1_ids_are_compared_by_position() -> None:
    v1 = b'{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n'
    pi = {
        "entryIds": [["p1", "message", None], ["p2", "message", "p1"]],
        "leafId": "p2",
        "branch": ["p1", "p2"],
        "tree": {"roots": ["p1"], "children": {"p1": ["p2"]}},
        "labels": {"p1": "x"},
        "context": {"messages": [{"role": "branchSummary", "fromId": "p1"}]},
    }
    ours = json.loads(json.dumps(pi).replace("p1", "q1").replace("p2", "q2"))
    assert compare(ours, pi, v1) is None
    v3 = v1.replace(b'"id"', b'"version":3,"id"')
    assert compare(ours, pi, v3) == '.entryIds[0][0]: pitui "q1" != pi "p1"'
    ours["tree"]["children"] = {"q2": ["q1"]}
    assert compare(ours, pi, v1) == '.tree.children.p1: missing in pitui; pi has ["p2"]'
