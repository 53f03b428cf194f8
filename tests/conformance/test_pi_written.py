"""pitui against sessions pi 1.6.0 wrote itself (``devkit.pi_written``: pi's own AgentSession
with the faux provider): ``pitui inspect --json`` and ``pitui ls --json`` must be what pi 1.6.0
makes of the same files, and the store must hold the same tree, path, labels and name.

The corpus is checked first: it must really hold every entry kind the generator is meant to
make, so that a change in pi or in the generator cannot quietly take one out of these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers.conformance import PITUI_TIMEOUT, REPO, check_against_pi, first_difference, inspect_all

from pitui.store.reader import Session

if TYPE_CHECKING:
    from devkit.oracle import Oracle
    from devkit.pi_written import Written

STORIES = ("tools", "compactions", "clone", "fork", "short", "other-cwd")
PROJECT = "tools"  # the project folder most sessions work in


@pytest.fixture(scope="module")
def by_story(pi_written: list[Written]) -> dict[str, Written]:
    stories = {w.story: w for w in pi_written}
    assert sorted(stories) == sorted(STORIES), "the generator's sessions changed: update STORIES"
    return stories


@pytest.fixture(scope="module")
def folder(pi_written: list[Written]) -> Path:
    (one,) = {w.file.parent for w in pi_written}
    return one


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ----------------------------------------------------------------------------------------------
# the corpus holds what it is meant to


def _kinds(entries: list[dict[str, Any]]) -> Counter[str]:
    """Every feature of the entries the corpus is meant to show, counted."""
    seen: Counter[str] = Counter()
    for e in entries:
        kind = e["type"]
        seen[kind] += 1
        if kind == "message":
            m = e["message"]
            role = m["role"]
            seen[f"role:{role}"] += 1
            content = m.get("content") if isinstance(m.get("content"), list) else []
            for block in content:
                seen[f"{role}:{block['type']}"] += 1
                if block["type"] == "toolCall":
                    seen[f"tool:{block['name']}"] += 1
            if role == "assistant":
                seen[f"stop:{m['stopReason']}"] += 1
            if role == "toolResult" and m.get("isError"):
                seen["tool error"] += 1
            if role == "bashExecution" and m.get("excludeFromContext"):
                seen["bash kept out of context"] += 1
        elif kind == "label":
            seen["label set" if e.get("label") else "label cleared"] += 1
        elif kind == "context_edit":
            r = e["replacement"]
            seen["edit omit" if r is None else f"edit replace {type(r['content']).__name__}"] += 1
        elif kind == "usage":
            seen["usage with note" if "note" in e else "usage"] += 1
        elif kind == "compaction" and "systemMessage" in e:
            seen["compaction with system checkpoint"] += 1
        elif kind == "model_change":
            seen[f"model {e['modelId']}"] += 1
        elif kind == "thinking_level_change":
            seen[f"thinking {e['thinkingLevel']}"] += 1
    return seen


MEANT = [
    *("role:system", "role:user", "role:assistant", "role:toolResult", "role:bashExecution"),
    *("assistant:thinking", "assistant:text", "assistant:toolCall", "user:image"),
    *(f"tool:{name}" for name in ("read", "bash", "edit", "write", "grep", "ls")),
    *("tool error", "stop:error", "stop:aborted", "stop:toolUse", "bash kept out of context"),
    *("model faux-1", "model faux-2", "thinking medium", "thinking high", "session_info"),
    *("label set", "label cleared", "edit omit", "edit replace str", "edit replace list"),
    *("usage", "usage with note", "compaction", "compaction with system checkpoint", "branch_summary"),
]


def test_the_corpus_holds_every_kind_it_is_meant_to(pi_written: list[Written]) -> None:
    seen = _kinds([e for w in pi_written for e in lines_of(w.file)])
    assert [kind for kind in MEANT if not seen[kind]] == []


def test_the_corpus_has_its_stories(by_story: dict[str, Written]) -> None:
    tools = lines_of(by_story["tools"].file)
    assert [e["name"] for e in tools if e["type"] == "session_info"] == ["Tool tour of alpha"]  # CR/LF runs: one space
    compacted = lines_of(by_story["compactions"].file)
    assert sum(e["type"] == "compaction" for e in compacted) == 2
    parents = Counter(e["parentId"] for e in compacted[1:])
    assert sum(n > 1 for n in parents.values()) >= 2, "two tree moves make two branch points"
    (summary,) = [e for e in compacted if e["type"] == "branch_summary"]
    assert summary["summary"].strip() and summary["fromId"] != summary["parentId"]
    for story in ("clone", "fork"):
        copy = lines_of(by_story[story].file)
        assert copy[0]["parentSession"] == str(by_story["compactions"].file)
        assert any(e["type"] == "compaction" for e in copy) and any(e["type"] == "label" for e in copy)
    cwds = Counter(w.cwd for w in by_story.values())
    assert len(cwds) == 2 and cwds[by_story[PROJECT].cwd] == 5
    assert by_story["other-cwd"].cwd != by_story[PROJECT].cwd


# ----------------------------------------------------------------------------------------------
# pitui inspect --json against pi 1.6.0


@pytest.fixture(scope="module")
def pi_reports(oracle: Oracle, pi_written: list[Written]) -> dict[str, Any]:
    return oracle.open_many([w.file for w in pi_written])


@pytest.fixture(scope="module")
def pitui_reports(pitui_env: dict[str, str], pi_written: list[Written]) -> dict[Path, Any]:
    return inspect_all(pitui_env, [w.file for w in pi_written])


@pytest.mark.parametrize("story", STORIES)
def test_inspect_matches_pi(
    story: str, by_story: dict[str, Written], pi_reports: dict[str, Any], pitui_reports: dict[Path, Any]
) -> None:
    path = by_story[story].file
    pi = pi_reports[str(path)]
    assert set(pi) != {"error"}, f"pi 1.6.0 cannot load a file it wrote itself: {pi['error']}"
    diff = check_against_pi(path, pitui_reports[path], pi)
    assert diff is None, f"{story}: {diff}"


# ----------------------------------------------------------------------------------------------
# the store: tree, path, labels and name, as pi 1.6.0 reads them


@pytest.mark.parametrize("story", STORIES)
def test_store_tree_path_labels_and_name_are_pis(
    story: str, by_story: dict[str, Written], pi_reports: dict[str, Any]
) -> None:
    path = by_story[story].file
    pi = pi_reports[str(path)]
    session = Session.load(str(path))
    tree = session.tree()
    ours = {
        "entryIds": [[e.id, e.type, e.parent_id] for e in session.entries],
        "leafId": session.leaf_id,
        "branch": [e.id for e in session.path_to()],
        "roots": [r.id for r in tree.roots],
        "children": {k: [c.id for c in v] for k, v in tree.children.items() if v},
        "labels": {e.id: session.labels[e.id] for e in session.entries if e.id in session.labels},
        "name": session.name,
    }
    theirs = {
        "entryIds": pi["entryIds"],
        "leafId": pi["leafId"],
        "branch": pi["branch"],
        "roots": pi["tree"]["roots"],
        "children": pi["tree"]["children"],
        "labels": pi["labels"],
        "name": pi["name"],
    }
    diff = first_difference(ours, theirs)
    assert diff is None, f"{story}: {diff}"


# ----------------------------------------------------------------------------------------------
# pitui ls --json against pi 1.6.0's listing


def pitui_ls(env: dict[str, str], cwd: str, *args: str) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "pitui", "ls", "--json", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))},
        cwd=cwd,
        timeout=PITUI_TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    listed: list[dict[str, Any]] = json.loads(proc.stdout)
    return listed


def test_ls_of_a_project_is_pis_list(
    oracle: Oracle, pitui_env: dict[str, str], folder: Path, by_story: dict[str, Written]
) -> None:
    cwd = by_story[PROJECT].cwd
    pis = oracle.list(folder, cwd)
    assert len(pis) == 5, "pi lists the project's own sessions only"
    diff = first_difference(pitui_ls(pitui_env, cwd, "--session-dir", str(folder)), pis)
    assert diff is None, diff


def test_ls_all_is_pis_listing_of_the_folder(
    oracle: Oracle, pitui_env: dict[str, str], folder: Path, by_story: dict[str, Written]
) -> None:
    pis = oracle.listdir(folder)
    assert len(pis) == len(STORIES)
    env = {**pitui_env, "PI_CODING_AGENT_SESSION_DIR": str(folder)}
    diff = first_difference(pitui_ls(env, by_story["other-cwd"].cwd, "--all"), pis)
    assert diff is None, diff
