"""A session made by the benchmark's own generator, small enough for a test."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from devkit.bench.session_builder import MODELS, SessionBuilder
from devkit.bench.text_corpus import Corpus


def small_session(path: Path, seed: int) -> list[dict[str, Any]]:
    """A session from the benchmark's own builder, on a small corpus (the real one takes seconds)."""
    rng = random.Random(seed)
    corpus = Corpus.__new__(Corpus)
    corpus.prose = Corpus._prose(rng, 60_000)
    corpus.code = Corpus._code(rng, 60_000)
    corpus.shell = Corpus._shell(rng, 20_000)
    corpus.b64 = "QUJD" * 2_000
    b = SessionBuilder(rng, corpus, 1_770_000_000_000, scale=0.3)
    b.model = MODELS[0]  # anthropic: its sessions get cache-warming entries
    b.start("/home/dev/projects/bench")
    for turn in range(40):
        b.turn(max_rounds=4)
        if turn == 25:
            b.compaction()
    b.header("019c1159-7000-70ed-8ae1-96c124638736", "/home/dev/projects/bench")
    path.write_bytes(b.data())
    return [json.loads(line) for line in path.read_bytes().splitlines()]
