"""Closing the catalog while another thread lists: a quitting app closes its catalog, and the
close must not wait for the rest of a listing (nor a usage count: ``test_usage.py``)."""

from __future__ import annotations

import pytest
from helpers.cache_lock import CloseOnFirstProgress

import pitui.store.catalog.workers as workers_mod
from devkit.builder import header, msg, write
from pitui.store.catalog import Catalog, ListingCancelled


@pytest.mark.parametrize("workers", [0, 2])
def test_closing_the_catalog_stops_a_listing_under_way(tmp_path, monkeypatch, workers):
    """The listing stops at its next file instead of making the close wait for the rest, and
    the catalog lists again afterwards."""
    folder = tmp_path / "agent" / "sessions" / "--p--"
    folder.mkdir(parents=True)
    for i in range(30):
        write(folder / f"{i:02d}.jsonl", header(id=f"s{i}"), msg("u", None, "user", f"text {i}"))
    monkeypatch.setattr(workers_mod, "BATCH_FILES", 1)  # (a batch per file: the pool has some left)
    catalog = Catalog(str(tmp_path / "agent"), str(tmp_path / "cache"), workers=workers)
    progress = CloseOnFirstProgress(catalog)
    with pytest.raises(ListingCancelled):
        catalog.list_all(progress)
    assert progress.closed()
    assert len(progress.told) < 30  # the files after the close were not read
    assert len(catalog.list_all()) == 30
