"""The two data sets: the big session, and the agent folder of many sessions over many projects
(its plan, then each session written where pi keeps it)."""

from __future__ import annotations

import contextlib
import math
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from devkit.bench.session_builder import SessionBuilder
from devkit.bench.text_corpus import Corpus, shared_corpus
from devkit.builder import file_name, uuid7
from pitui.store.js import iso_ms
from pitui.store.paths import encode_cwd

if TYPE_CHECKING:
    from devkit.bench.generate import Params

_NAMES = [
    "Refactor session store",
    "Fix flaky tests",
    "Add tree view",
    "Investigate memory leak",
    "Port parser to Rust",
    "Release prep",
    "CI pipeline cleanup",
    "Search index",
    "Dark mode",
    "Login bug",
    "API pagination",
    "Upgrade dependencies",
    "Docs pass",
    "Perf: startup time",
    "Websocket client",
    "Migration v3",
    "Label support",
    "Crash on empty file",
]


# Fixed reference time: generated sessions end before this moment.
_END_MS = 1_777_593_600_000  # 2026-05-01T00:00:00Z


def build_big(params: Params) -> tuple[str, bytes]:
    """The big session: (file name, bytes)."""
    rng = random.Random(params.seed * 7 + 1)
    corpus = shared_corpus(params.seed)
    n = params.big_entries
    t0 = _END_MS - 90 * 86_400_000
    b = SessionBuilder(rng, corpus, t0, scale=0.4, query_rate=0.002)
    b.limit = n
    session_id = uuid7(rng, t0)
    cwd = "/home/dev/projects/pi-mono"
    next_branch = rng.randint(150, 500)
    next_label = rng.randint(500, 1500)
    next_model = rng.randint(3_000, 10_000)
    compactions = sorted(rng.sample(range(n // 10, n), 4))
    names = {rng.randint(30, 80): "Session store rewrite", int(n * 0.6): "Session store rewrite (part 2)"}
    try:
        b.start(cwd)
        while True:
            b.turn()
            count = len(b.lines)
            for at in [k for k in names if k <= count]:
                b.session_info(names.pop(at))
            if compactions and count >= compactions[0]:
                compactions.pop(0)
                b.compaction()
            if count >= next_branch:
                next_branch = count + rng.randint(150, 500)
                b.go_back()
            if count >= next_label:
                next_label = count + rng.randint(500, 1500)
                b.label()
            if count >= next_model:
                next_model = count + rng.randint(3_000, 10_000)
                if rng.random() < 0.5:
                    b.model_change()
                else:
                    b.thinking_change()
            # Pauses between working sessions.
            if rng.random() < 0.05:
                b.t += rng.randint(3_600_000, 40_000_000)
    except SessionBuilder.Full:
        pass
    b.t = t0
    b.header(session_id, cwd)
    return file_name(iso_ms(t0), session_id), b.data()


@dataclass(frozen=True)
class SessionSpec:
    index: int
    seed: int
    cwd: str
    t0: int
    target: int
    name: str | None
    query: bool
    fork_of: int | None  # index of the parent session
    fork_at: int  # number of the parent's entries the fork starts with


def _projects(rng: random.Random, count: int) -> list[str]:
    roots = [
        "/home/dev/projects",
        "/home/dev/src/acme",
        "/home/dev/src/github.com/someone",
        "/Users/dev/code",
        "/home/dev/projects/experiments",
        "/srv/repos",
    ]
    names = [
        "pi-mono",
        "pitui",
        "api-server",
        "web",
        "mobile-app",
        "infra",
        "dotfiles",
        "notes",
        "blog",
        "parser",
        "compiler",
        "game",
        "ml-pipeline",
        "etl",
        "docs-site",
        "cli",
        "sdk",
        "auth",
        "billing",
        "search",
        "crawler",
        "bot",
        "scheduler",
        "dashboard",
        "design-system",
        "tracing",
        "storage",
        "proxy",
        "queue",
        "cache",
        "payments",
        "analytics",
        "edge",
        "firmware",
        "emulator",
        "shell",
        "editor",
        "tui",
        "chat",
        "agent",
        "vector-db",
        "wasm-demo",
        "my app",
        "café-site",
    ]
    out = []
    for i in range(count):
        out.append(f"{rng.choice(roots)}/{names[i % len(names)]}" + (f"-{i // len(names)}" if i >= len(names) else ""))
    return out


def plan_tree(params: Params) -> list[SessionSpec]:
    rng = random.Random(params.seed * 7 + 2)
    projects = _projects(rng, params.projects)
    # Projects get a Zipf-like share of the sessions.
    weights = [1.0 / (i + 1) ** 0.9 for i in range(len(projects))]
    specs: list[SessionSpec] = []
    by_project: dict[str, list[int]] = {}
    mu = math.log(params.median_size)
    for i in range(params.sessions):
        cwd = rng.choices(projects, weights)[0]
        target = int(min(params.max_size, max(params.min_size, rng.lognormvariate(mu, params.size_sigma))))
        t0 = _END_MS - rng.randint(3_600_000, 180 * 86_400_000)
        name = rng.choice(_NAMES) if rng.random() < params.named_fraction else None
        query = rng.random() < params.query_fraction
        fork_of = None
        fork_at = 0
        siblings = by_project.setdefault(cwd, [])
        if siblings and rng.random() < params.fork_fraction:
            parent = specs[rng.choice(siblings)]
            if parent.fork_of is None and parent.target > 8_000:
                fork_of = parent.index
                # Roughly the first third of the parent (entries are about 1 KB on average).
                fork_at = max(4, min(parent.target // 3000, 2_000))
                t0 = parent.t0  # replaced by the time after the copied entries
        specs.append(SessionSpec(i, params.seed * 1_000_003 + i, cwd, t0, target, name, query, fork_of, fork_at))
        siblings.append(i)
    return specs


def _build_session_body(spec: SessionSpec, corpus: Corpus, limit: int | None = None) -> SessionBuilder:
    rng = random.Random(spec.seed)
    b = SessionBuilder(
        rng,
        corpus,
        spec.t0,
        scale=0.5 if spec.target < 30_000 else 1.0,
        query_rate=0.3 if spec.query else 0.0,
    )
    b.limit = limit
    with contextlib.suppress(SessionBuilder.Full):
        _fill(b, spec, rng)
    return b


def _fill(b: SessionBuilder, spec: SessionSpec, rng: random.Random, started: bool = False) -> None:
    if not started:
        b.start(spec.cwd)
    named_at = rng.choice([1, 2, 5]) if spec.name else None
    turns = 0
    next_branch = rng.randint(150, 600)
    while b.size < spec.target:
        b.turn(max_rounds=3 if spec.target < 20_000 else 12)
        turns += 1
        if named_at == turns:
            b.session_info(spec.name or "")
        count = len(b.lines)
        if count >= next_branch:
            next_branch = count + rng.randint(150, 600)
            b.go_back()
        if rng.random() < 0.01:
            b.label()
        if b.size > 800_000 and rng.random() < 0.004:
            b.compaction()
        if rng.random() < 0.005:
            b.model_change()


def build_session(spec: SessionSpec, specs: list[SessionSpec], sessions_dir: Path, seed: int) -> tuple[str, int]:
    corpus = shared_corpus(seed)
    rng = random.Random(spec.seed ^ 0x5EED)
    session_id_t0 = spec.t0
    if spec.fork_of is None:
        b = _build_session_body(spec, corpus)
        header_t = spec.t0
        parent_path = None
    else:
        parent = specs[spec.fork_of]
        # The fork starts with the parent's first entries, byte for byte, as pi's forkFrom copies them.
        b = _build_session_body(parent, corpus, limit=parent.fork_at)
        b.rng = rng
        b.limit = None
        b.query_rate = 0.3 if spec.query else 0.0
        header_t = b.t + rng.randint(60_000, 3 * 86_400_000)
        b.t = header_t
        session_id_t0 = header_t
        parent_path = str(sessions_dir / encode_cwd(parent.cwd) / _session_file_name(parent))
        _fill(b, spec, rng, started=True)
    session_id = uuid7(random.Random(spec.seed), session_id_t0)
    end_t = b.t
    b.t = header_t
    b.header(session_id, spec.cwd, parent_path)
    name = file_name(iso_ms(header_t), session_id)
    folder = sessions_dir / encode_cwd(spec.cwd)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b.data())
    mtime = end_t / 1000
    os.utime(path, (mtime, mtime))
    return str(path), b.size


def _session_file_name(spec: SessionSpec) -> str:
    """The file name of a session that is not a fork (its header time is its t0)."""
    return file_name(iso_ms(spec.t0), uuid7(random.Random(spec.seed), spec.t0))
