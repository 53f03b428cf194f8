"""The picker's session preview (pitui.store.stats) against pi itself: entries, tree, labels,
name and leaf as the oracle's ``open`` reads them, and the listing fields as its ``list`` lists them."""

from __future__ import annotations

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

from pitui.store.js import iso_ms


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
