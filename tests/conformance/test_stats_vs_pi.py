"""The picker's session preview (pitui.store.stats) against pi itself: entries, tree, labels,
name and leaf as the oracle's ``open`` reads them, the listing fields as its ``list`` lists them,
and the session totals (pitui.store.totals) as pi 1.6's ``/session`` adds them up."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.stats_reading import (
    FOR_PI,
    V1,
    ids,
    message_of,
    one_line,
    plain_entries,
    preview,
    text_of,
)

from pitui.store.canonical import inspect_file
from pitui.store.js import iso_ms
from pitui.store.jsonl import dumps


@pytest.fixture(scope="module")
def pi_open(oracle_073) -> dict[str, Any]:
    return oracle_073.open_many(FOR_PI)


@pytest.fixture(scope="module")
def pi_list(oracle_073, tmp_path_factory) -> dict[str, dict[str, Any]]:
    """pi's listing rows of every file pi can read, by file name."""
    folder = tmp_path_factory.mktemp("listed")
    for path in FOR_PI:
        shutil.copyfile(path, folder / path.name)
    return {Path(row["path"]).name: row for row in oracle_073.list(folder)}


@pytest.mark.parametrize("path", FOR_PI, ids=ids(FOR_PI))
def test_entries_tree_labels_and_name_as_pi_reads_them(path, pi_open):
    pi = pi_open[str(path)]
    if "error" in pi:
        pytest.skip(f"pi cannot load it: {pi['error']}")
    got = preview(path)
    assert got.entries == len(pi["entryIds"])
    assert got.messages == sum(1 for _, kind, _ in pi["entryIds"] if kind == "message")
    assert got.name == pi["name"]
    assert {label.target_id: label.text for label in got.labels} == pi["labels"]
    children = pi["tree"]["children"]
    distinct = {entry_id for entry_id, _, _ in pi["entryIds"]}
    assert got.leaves == len(distinct - {k for k, kids in children.items() if kids})
    assert got.branch_points == sum(1 for kids in children.values() if len(kids) > 1)
    if path.name in V1:
        assert got.leaf_id is None  # pi gives v1 entries new random ids: there is no id to show
    else:
        assert got.leaf_id == pi.get("leafId")
    # The last prompt: the last user message with text on pi's path to the leaf.
    _, entries = plain_entries(path)
    assert len(entries) == len(pi["entryIds"])
    position = {row[0]: index for index, row in enumerate(pi["entryIds"])}
    texts = [
        text_of(m)
        for m in (message_of(entries[position[i]]) for i in pi["branch"])
        if m is not None and m.get("role") == "user"
    ]
    texts = [t for t in texts if t]
    assert got.last_prompt == (one_line(texts[-1]) if texts else None)


@pytest.mark.parametrize("path", FOR_PI, ids=ids(FOR_PI))
def test_listing_fields_as_pi_lists_them(path, pi_list):
    row = pi_list.get(path.name)
    if row is None:
        pytest.skip("pi does not list it")
    got = preview(path)
    assert got.session_id == row["id"]
    assert got.cwd == row["cwd"]
    assert got.parent_session == row["parentSessionPath"]
    assert iso_ms(got.created) == row["created"]
    assert iso_ms(got.modified) == row["modified"]
    assert got.messages == row["messageCount"]
    first = row["firstMessage"]
    assert got.first_prompt == (None if first == "(no messages)" else one_line(first))


@pytest.mark.parametrize("path", FOR_PI, ids=ids(FOR_PI))
def test_totals_as_pi_adds_them_up(path, pi_open):
    """``inspect --json``'s ``stats`` is pi's (its error too, where pi throws), and the preview
    shows pi's numbers wherever pi's sums are numbers."""
    pi = pi_open[str(path)]
    if "error" in pi:
        pytest.skip(f"pi cannot load it: {pi['error']}")
    if "stats" not in pi:
        pytest.skip("this oracle script prints no /session totals")
    _, report = inspect_file(str(path))
    assert json.loads(dumps(report["stats"], prepared=True)) == pi["stats"]
    stats = pi["stats"]
    got = preview(path).totals
    if "error" in stats:
        assert got.error == stats["error"]
        return
    assert (got.user_messages, got.assistant_messages, got.tool_calls, got.tool_results, got.total_messages) == (
        stats["userMessages"],
        stats["assistantMessages"],
        stats["toolCalls"],
        stats["toolResults"],
        stats["totalMessages"],
    )
    tokens = stats["tokens"]
    figures = [tokens["input"], tokens["output"], tokens["cacheRead"], tokens["cacheWrite"], tokens["total"]]
    shown = [got.input, got.output, got.cache_read, got.cache_write, got.total_tokens]
    for pi_figure, figure in zip(figures, shown, strict=True):
        if type(pi_figure) in (int, float):
            assert figure == pi_figure
    if type(stats["cost"]) in (int, float):
        assert math.isclose(got.cost, stats["cost"], rel_tol=0, abs_tol=1e-9)
