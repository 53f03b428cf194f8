"""Deterministic generators of pi session data for the benchmark.

Two data sets, both written in pi 1.6.0's exact format (compact JSON, keys in pi's order, 8-hex
entry ids, ISO millisecond ``Z`` timestamps, UUIDv7 session ids), with what pi 1.6.0 writes that
0.73.1 did not: a system message at the start of every session and its checkpoint in
compactions, cache-warming ``usage`` entries, and a few ``context_edit`` entries (``pi16.py``):

* ``big``: one long session (100,000 entries, about 100 MB by default): a chain of
  user / assistant / toolResult messages with thinking, text, tool calls, usage and tool output of
  varied size, with a branch every few hundred entries (the conversation goes back a few entries
  and continues; the leaf ends on the newest branch), labels, a few compactions, model and
  thinking level changes and session names.
* ``tree``: an agent folder ``agent/sessions/<encoded cwd>/*.jsonl`` with 2,000 sessions over
  about 40 project folders, sizes log-normal between 2 KB and 2 MB, names on some, forks with
  ``parentSession`` on some.

The output goes to a cache folder (default ``$TMPDIR/pitui-bench/<preset>``) and is reused when
it was made with the same parameters. Same parameters, same bytes.

    python -m devkit.bench.generate [--quick] [--out DIR] [--force] [--verify]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

import orjson

from devkit.bench import pi16
from devkit.builder import (
    MISSING,
    assistant_message,
    branch_summary,
    compaction,
    file_name,
    header,
    label,
    message,
    model_change,
    session_info,
    text_block,
    thinking_block,
    thinking_level_change,
    tool_call,
    tool_result_message,
    user_message,
    uuid7,
)
from pitui.store.js import iso_ms
from pitui.store.paths import encode_cwd

# A cache made by a different version of this file is not reused.
GENERATOR_VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]

# Words of the benchmark's search query. They are kept out of the ordinary vocabulary and put
# into a few percent of the sessions, so a word search has a selective query to answer.
SEARCH_QUERY = "websocket reconnect"
_QUERY_SENTENCES = (
    "The websocket reconnect loop gives up after the third backoff, can you look at why?",
    "I think the websocket reconnect logic drops queued messages when the server restarts.",
    "Add a test for the websocket reconnect path with a flaky network.",
)


@dataclass(frozen=True)
class Params:
    seed: int = 20260501
    big_entries: int = 100_000
    sessions: int = 2_000
    projects: int = 40
    min_size: int = 2_000
    max_size: int = 2_000_000
    median_size: int = 90_000
    size_sigma: float = 1.4
    named_fraction: float = 0.15
    fork_fraction: float = 0.06
    query_fraction: float = 0.04

    def key(self) -> str:
        data = json.dumps({"v": GENERATOR_VERSION, **asdict(self)}, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]


PRESETS = {
    "full": Params(),
    "quick": Params(big_entries=10_000, sessions=200, projects=12),
}


# --------------------------------------------------------------------------------------------
# Text corpus: built once per process from the seed, then sliced. Slicing keeps generation
# fast; the corpus is large and varied enough that the sessions do not look like copies.


def _words(text: str) -> list[str]:
    return text.split()


_PROSE_WORDS = _words("""
the a to of and in is it that for this with on be as we can not are if should will
file function test error value type state session entry tree branch leaf label message
user assistant tool result output input change fix bug issue code line path folder read
write edit run build check look see add remove update use make sure need want think
first then next now also still just only again here there when where why how what which
because so but or all any each some more most other new old same different right wrong
parse load save open close list show render update cache index scan query search filter
sort group count size time date timestamp offset length buffer stream chunk block byte
config option setting flag default argument parameter return call method class module
import export package dependency version release commit diff patch merge rebase remote
server client request response handler route endpoint status header body json yaml text
async await promise callback event listener queue worker thread process signal timeout
memory disk network socket port host address token key secret hash id uuid random seed
performance slow fast latency throughput benchmark profile trace log debug warning info
works fails passes breaks crashes hangs returns throws logs prints writes reads calls
looks seems appears happens means expect expected actually probably maybe definitely
let's I'll we'll it's that's there's don't doesn't can't won't isn't aren't wasn't
simple complex small large empty full missing broken valid invalid correct careful
because before after during until while since unless although however therefore
""")

_RARE_WORDS = _words("""
idempotent serialization backpressure monotonic invariant heuristic amortized quadratic
deduplicate normalization tokenizer concurrency deterministic reproducible regression
migration rollback checkpoint compaction summarization truncation pagination virtualization
unicode surrogate codepoint grapheme escape sequence terminal viewport scrollback keybinding
café naïve résumé Zürich 日本語 テスト 中文 ✓ → … «quoted» ünïcödé emoji 🚀 🎉
""")

_IDENT_PARTS = _words("""
session entry tree node leaf label path branch context message tool result cache index
scan row list view item file dir name id parent child root summary model usage cost token
reader writer parser loader builder manager store catalog watcher digest render format
get set load save parse build make find read write open close append update compute resolve
""")

_FILE_DIRS = [
    "src",
    "src/core",
    "src/ui",
    "src/utils",
    "lib",
    "tests",
    "test/fixtures",
    "packages/app/src",
    "packages/core/src",
    "scripts",
    "docs",
    "internal",
    "cmd",
    "pkg/store",
]
_FILE_EXTS = [".ts", ".ts", ".tsx", ".py", ".py", ".go", ".rs", ".js", ".json", ".md", ".toml"]

_LABELS = [
    "good state",
    "before refactor",
    "bug repro",
    "works",
    "checkpoint",
    "v2 api",
    "try this",
    "baseline",
    "broken",
    "review me",
    "perf fix",
    "keep",
]
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

_MODELS = [
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3.0, 15.0),
    ("anthropic", "claude-opus-4-5", "anthropic-messages", 5.0, 25.0),
    ("openai", "gpt-5.1-codex", "openai-responses", 1.25, 10.0),
    ("google", "gemini-2.5-pro", "google-generative-ai", 1.25, 10.0),
]
_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"]

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class Corpus:
    """Long strings of prose, code, shell output and base64 to take slices from."""

    def __init__(self, seed: int, scale: int = 1) -> None:
        rng = random.Random(seed)
        self.prose = self._prose(rng, 2_500_000 * scale)
        self.code = self._code(rng, 2_500_000 * scale)
        self.shell = self._shell(rng, 1_000_000 * scale)
        self.b64 = base64.b64encode(rng.randbytes(300_000)).decode()

    @staticmethod
    def _prose(rng: random.Random, size: int) -> str:
        common = _PROSE_WORDS
        weights = [1.0 / (i + 1) ** 0.8 for i in range(len(common))]
        out: list[str] = []
        total = 0
        while total < size:
            n = rng.randint(6, 22)
            words = rng.choices(common, weights, k=n)
            if rng.random() < 0.35:
                words[rng.randrange(n)] = rng.choice(_RARE_WORDS)
            if rng.random() < 0.4:
                words[rng.randrange(n)] = "`" + _ident(rng) + "`"
            if rng.random() < 0.2:
                words[rng.randrange(n)] = _file_path(rng)
            sentence = " ".join(words)
            sentence = sentence[0].upper() + sentence[1:] + rng.choice(".....?!:")
            out.append(sentence)
            out.append("\n\n" if rng.random() < 0.15 else " ")
            total += len(sentence) + 1
        return "".join(out)

    @staticmethod
    def _code(rng: random.Random, size: int) -> str:
        out: list[str] = []
        total = 0
        indent = 0
        while total < size:
            r = rng.random()
            if r < 0.12:
                line = (
                    f"{'export ' if rng.random() < 0.5 else ''}function {_ident(rng)}({_ident(rng)}, {_ident(rng)}) {{"
                )
                indent_next = 1
            elif indent > 0 and r < 0.12 + 0.06 * indent:
                line, indent_next = "}", -1
            elif r < 0.35:
                line = f"const {_ident(rng)} = await {_ident(rng)}({_ident(rng)}, {{ limit: {rng.randint(1, 5000)} }});"
                indent_next = 0
            elif r < 0.45:
                line = f"if ({_ident(rng)}.{_ident(rng)} === {rng.randint(0, 99)}) {{"
                indent_next = 1
            elif r < 0.55:
                line = f"// {' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 12)))}"
                indent_next = 0
            elif r < 0.62:
                line = f"return {_ident(rng)}.{_ident(rng)}({_ident(rng)});"
                indent_next = 0
            elif r < 0.68:
                line = f'import {{ {_ident(rng)}, {_ident(rng)} }} from "./{_ident(rng)}.js";'
                indent_next = 0
            elif r < 0.72:
                line = ""
                indent_next = 0
            elif r < 0.8:
                line = f"throw new Error(`{rng.choice(_PROSE_WORDS)} {_ident(rng)}: ${{{_ident(rng)}}}`);"
                indent_next = 0
            else:
                line = (
                    f"{_ident(rng)}.{_ident(rng)} = {_ident(rng)}[{rng.randint(0, 64)}] ?? "
                    f'"{rng.choice(_RARE_WORDS + _PROSE_WORDS)}";'
                )
                indent_next = 0
            if indent_next < 0:
                indent = max(0, indent - 1)
            text = "    " * indent + line
            if indent_next > 0:
                indent = min(indent + 1, 6)
            out.append(text)
            total += len(text) + 1
        return "\n".join(out) + "\n"

    @staticmethod
    def _shell(rng: random.Random, size: int) -> str:
        out: list[str] = []
        total = 0
        while total < size:
            r = rng.random()
            if r < 0.3:
                line = (
                    f"{_file_path(rng)}:{rng.randint(1, 2000)}:{rng.randint(1, 80)}: "
                    f"{' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 10)))}"
                )
            elif r < 0.45:
                line = (
                    f"  \x1b[32m✓\x1b[39m {' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(3, 8)))} "
                    f"\x1b[2m({rng.randint(1, 900)}ms)\x1b[22m"
                )
            elif r < 0.55:
                line = f"  \x1b[31m✗\x1b[39m {_ident(rng)} > {' '.join(rng.choices(_PROSE_WORDS, k=5))}"
            elif r < 0.75:
                line = _file_path(rng)
            elif r < 0.85:
                line = (
                    f"-rw-r--r--  1 dev  staff  {rng.randint(10, 99999):>6} Mar {rng.randint(1, 28):>2} "
                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {_ident(rng)}.ts"
                )
            else:
                line = (
                    f"[{rng.choice(['INFO', 'WARN', 'DEBUG', 'ERROR'])}] {_ident(rng)}: "
                    f"{' '.join(rng.choices(_PROSE_WORDS, k=rng.randint(4, 14)))}"
                )
            out.append(line)
            total += len(line) + 1
        return "\n".join(out) + "\n"


def _ident(rng: random.Random) -> str:
    a, b = rng.choice(_IDENT_PARTS), rng.choice(_IDENT_PARTS)
    return a + b[0].upper() + b[1:] if rng.random() < 0.7 else a


def _file_path(rng: random.Random) -> str:
    return f"{rng.choice(_FILE_DIRS)}/{_ident(rng)}{rng.choice(_FILE_EXTS)}"


def _slice(rng: random.Random, text: str, length: int) -> str:
    length = max(1, min(length, len(text) - 1))
    start = rng.randrange(0, len(text) - length)
    space = text.find(" ", start, start + 40)
    if space >= 0:
        start = space + 1
    return text[start : start + length].strip() or "ok"


def _lines_slice(rng: random.Random, text: str, length: int) -> str:
    length = max(1, min(length, len(text) - 1))
    start = text.find("\n", rng.randrange(0, len(text) - length)) + 1
    end = text.rfind("\n", start, start + length)
    if end <= start:
        end = start + length
    return text[start:end]


# --------------------------------------------------------------------------------------------
# Costs, as JavaScript prints them.


def _money(x: float) -> float | int:
    """A cost as JSON.stringify prints it: no integral floats, nothing in exponent notation."""
    x = round(x, 6)
    if x < 0.0001:
        return 0
    if x == int(x):
        return int(x)
    return x


# --------------------------------------------------------------------------------------------
# One session.


class SessionBuilder:
    """Appends entries the way pi does: parent = current leaf, leaf moves to the new entry."""

    def __init__(
        self, rng: random.Random, corpus: Corpus, t0: int, *, scale: float = 1.0, query_rate: float = 0.0
    ) -> None:
        self.rng = rng
        self.c = corpus
        self.t = t0
        self.scale = scale
        self.query_rate = query_rate
        self.ids: set[str] = set()
        self.lines: list[bytes] = []
        self.size = 0
        self.leaf: str | None = None
        # The current branch, root to leaf: (id, kind), kind "user" for user messages.
        self.path: list[tuple[str, str]] = []
        self.model = _MODELS[0]
        self.context_tokens = 3_000
        self.limit: int | None = None  # stop (raise Full) after this many entries
        self.sections: dict[str, str] | None = None  # pi 1.6's prompt, once the system message is written

    class Full(Exception):
        pass

    # -- low level --------------------------------------------------------------------

    def _new_id(self) -> str:
        rng = self.rng
        while True:
            value = f"{rng.getrandbits(32):08x}"
            if value not in self.ids:
                self.ids.add(value)
                return value

    def _tick(self, lo: int, hi: int) -> int:
        self.t += self.rng.randint(lo, hi)
        return self.t

    def _emit(self, obj: dict, entry_id: str, kind: str) -> str:
        line = orjson.dumps(obj) + b"\n"
        self.lines.append(line)
        self.size += len(line)
        self.leaf = entry_id
        self.path.append((entry_id, kind))
        if self.limit is not None and len(self.lines) >= self.limit:
            raise SessionBuilder.Full
        return entry_id

    def _stamp(self) -> str:
        """The timestamp of a non-message entry: 1 to 40 ms after the last one."""
        return iso_ms(self._tick(1, 40))

    def header(self, session_id: str, cwd: str, parent_session: str | None = None) -> None:
        extra = {} if parent_session is None else {"parentSession": parent_session}
        obj = header(3, cwd, id=session_id, timestamp=iso_ms(self.t), **extra)
        line = orjson.dumps(obj) + b"\n"
        self.lines.insert(0, line)
        self.size += len(line)

    # -- entry types --------------------------------------------------------------------

    def message(self, msg: dict, kind: str = "msg") -> str:
        entry_id = self._new_id()
        # The entry is stamped a few milliseconds after the message, as pi appends it.
        self.t = max(self.t, msg["timestamp"] + self.rng.randint(0, 9))
        obj = message(entry_id, self.leaf, iso_ms(self.t), msg)
        return self._emit(obj, entry_id, kind)

    def model_change(self) -> str:
        self.model = self.rng.choice(_MODELS)
        entry_id = self._new_id()
        obj = model_change(entry_id, self.leaf, self._stamp(), self.model[0], self.model[1])
        return self._emit(obj, entry_id, "meta")

    def thinking_change(self) -> str:
        entry_id = self._new_id()
        stamp = self._stamp()
        obj = thinking_level_change(entry_id, self.leaf, stamp, self.rng.choice(_THINKING_LEVELS))
        return self._emit(obj, entry_id, "meta")

    def session_info(self, name: str) -> str:
        entry_id = self._new_id()
        return self._emit(session_info(entry_id, self.leaf, self._stamp(), name), entry_id, "meta")

    def label(self) -> str:
        rng = self.rng
        recent = self.path[-min(len(self.path), 200) :]
        target = rng.choice(recent)[0]
        entry_id = self._new_id()
        stamp = self._stamp()
        value = rng.choice(_LABELS) if rng.random() < 0.9 else MISSING
        return self._emit(label(entry_id, self.leaf, stamp, target, value), entry_id, "meta")

    def compaction(self) -> str:
        rng = self.rng
        users = [i for i, (_, kind) in enumerate(self.path[-300:]) if kind == "user"]
        first_kept = self.path[-300:][users[len(users) // 2]][0] if users else self.path[-1][0]
        entry_id = self._new_id()
        stamp = self._stamp()
        summary = (
            "## Goal\n"
            + _slice(rng, self.c.prose, rng.randint(300, 800))
            + "\n\n## Progress\n"
            + _slice(rng, self.c.prose, rng.randint(800, 3000))
            + "\n\n## Next steps\n"
            + _slice(rng, self.c.prose, rng.randint(200, 600))
        )
        tokens = rng.randint(150_000, 195_000)
        details = {
            "readFiles": [_file_path(rng) for _ in range(rng.randint(2, 15))],
            "modifiedFiles": [_file_path(rng) for _ in range(rng.randint(0, 8))],
        }
        obj = compaction(entry_id, self.leaf, stamp, summary, first_kept, tokens, details=details, from_hook=False)
        if self.sections is not None:  # pi 1.6 keeps the prompt in the compaction
            obj["systemMessage"] = pi16.checkpoint(self.sections, self.t)
        self.context_tokens = rng.randint(8_000, 20_000)
        return self._emit(obj, entry_id, "meta")

    def go_back(self) -> None:
        """Move the leaf back a few entries, as /tree does: to the parent of a recent user
        message, sometimes with a branch summary at the new position."""
        rng = self.rng
        window = self.path[-min(len(self.path), rng.randint(4, 40)) :]
        users = [i for i, (_, kind) in enumerate(window) if kind == "user"]
        if not users:
            return
        cut = len(self.path) - len(window) + users[0]
        if cut == 0:
            return
        left = self.leaf  # pi 1.6's branch summary names the leaf it leaves (0.73.1: its parent)
        del self.path[cut:]
        self.leaf = self.path[-1][0]
        if rng.random() < 0.4:
            entry_id = self._new_id()
            stamp = self._stamp()
            summary = "The user explored a different approach: " + _slice(rng, self.c.prose, rng.randint(200, 1200))
            details = {
                "readFiles": [_file_path(rng) for _ in range(rng.randint(0, 6))],
                "modifiedFiles": [_file_path(rng) for _ in range(rng.randint(0, 4))],
            }
            obj = branch_summary(entry_id, self.leaf, stamp, left, summary, details, from_hook=False)
            self._emit(obj, entry_id, "meta")

    # -- messages -----------------------------------------------------------------------

    def _n(self, lo: int, hi: int) -> int:
        """A text length, log-uniform between lo and hi, times the builder's scale."""
        return max(1, int(math.exp(self.rng.uniform(math.log(lo), math.log(hi))) * self.scale))

    def user(self) -> str:
        rng = self.rng
        self._tick(5_000, 600_000)
        text = _slice(rng, self.c.prose, self._n(30, 900))
        if rng.random() < 0.06:
            text += "\n\n```\n" + _lines_slice(rng, self.c.code, self._n(500, 6000)) + "```"
        if self.query_rate and rng.random() < self.query_rate:
            text = rng.choice(_QUERY_SENTENCES) + " " + text
        return self.message(user_message([text_block(text)], self.t), "user")

    def _usage(self, output: int) -> dict:
        rng = self.rng
        provider, _model, _api, price_in, price_out = self.model
        fresh = rng.randint(50, 4_000)
        cache_read = max(0, self.context_tokens - fresh)
        cache_write = fresh if provider == "anthropic" else 0
        inp = rng.randint(1, 30) if provider == "anthropic" else fresh
        self.context_tokens += fresh + output
        c_in = _money(inp * price_in / 1e6)
        c_out = _money(output * price_out / 1e6)
        c_cr = _money(cache_read * price_in / 10 / 1e6)
        c_cw = _money(cache_write * price_in * 1.25 / 1e6)
        return {
            "input": inp,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": inp + output + cache_read + cache_write,
            "cost": {
                "input": c_in,
                "output": c_out,
                "cacheRead": c_cr,
                "cacheWrite": c_cw,
                "total": _money(sum(x for x in (c_in, c_out, c_cr, c_cw))),
            },
        }

    def _tool_call(self) -> dict:
        rng = self.rng
        call_id = "toolu_01" + "".join(rng.choices(_B62, k=22))
        r = rng.random()
        if r < 0.35:
            name, args = "read", {"path": _file_path(rng)}
            if rng.random() < 0.3:
                args["offset"] = rng.randint(1, 800)
                args["limit"] = rng.choice([50, 100, 200])
        elif r < 0.65:
            cmd = rng.choice(
                [
                    "npm test",
                    "npm run check",
                    "git status",
                    "git diff --stat",
                    "ls -la",
                    "rg -n",
                    "cat",
                    "python -m pytest -x -q",
                    "go test ./...",
                    "cargo build",
                ]
            )
            if cmd in ("rg -n", "cat"):
                cmd += " " + _file_path(rng)
            name, args = "bash", {"command": cmd}
            if rng.random() < 0.2:
                args["timeout"] = rng.choice([30, 60, 120])
        elif r < 0.9:
            name, args = (
                "edit",
                {
                    "path": _file_path(rng),
                    "oldText": _lines_slice(rng, self.c.code, self._n(40, 1500)),
                    "newText": _lines_slice(rng, self.c.code, self._n(40, 1800)),
                },
            )
        else:
            name, args = (
                "write",
                {"path": _file_path(rng), "content": _lines_slice(rng, self.c.code, self._n(200, 8000))},
            )
        return tool_call(call_id, name, args)

    def assistant(self, final: bool) -> list[dict]:
        rng = self.rng
        provider, model, api, _pi, _po = self.model
        self._tick(2_000, 60_000)
        content: list[dict] = []
        if rng.random() < 0.7:
            sig = _slice(rng, self.c.b64, self._n(150, 1000))
            content.append(thinking_block(_slice(rng, self.c.prose, self._n(80, 2500)), sig))
        if final or rng.random() < 0.45:
            content.append(text_block(_slice(rng, self.c.prose, self._n(40, 2500 if final else 600))))
        calls = [] if final else [self._tool_call() for _ in range(1 if rng.random() < 0.8 else rng.randint(2, 4))]
        content.extend(calls)
        output = sum(len(str(b)) for b in content) // 4 + rng.randint(5, 60)
        stop = "stop" if final else "toolUse"
        msg = assistant_message(
            content, api=api, provider=provider, model=model, usage=self._usage(output), stop=stop, timestamp=self.t
        )
        if final and rng.random() < 0.03:
            msg["stopReason"] = "aborted"
            msg["errorMessage"] = "Request was aborted"
        if provider == "anthropic":
            msg["responseId"] = "msg_01" + "".join(rng.choices(_B62, k=22))
        self.message(msg)
        return calls

    def tool_result(self, call: dict) -> str:
        rng = self.rng
        name = call["name"]
        self._tick(50, 20_000)
        is_error = rng.random() < 0.05
        details = None
        big = rng.random() < 0.02
        if is_error:
            text = f"Error: {_slice(rng, self.c.prose, self._n(30, 300))}"
        elif name == "read":
            text = _lines_slice(rng, self.c.code, self._n(300, 12_000) if not big else self._n(20_000, 100_000))
        elif name == "bash":
            text = _lines_slice(rng, self.c.shell, self._n(20, 4_000) if not big else self._n(15_000, 60_000))
            if big and rng.random() < 0.5:
                details = {
                    "truncation": {
                        "truncated": True,
                        "truncatedBy": "lines",
                        "totalLines": rng.randint(2_001, 9_000),
                        "outputLines": 2_000,
                    },
                    "fullOutputPath": f"/tmp/pi-bash-{rng.getrandbits(32):08x}.log",
                }
        elif name == "edit":
            path = call["arguments"]["path"]
            text = f"Successfully replaced text in {path}."
            diff = _lines_slice(rng, self.c.code, self._n(100, 2500))
            details = {
                "diff": "\n".join(
                    ("+" if i % 3 else "-") + f"{rng.randint(1, 900):>4} {ln}" for i, ln in enumerate(diff.split("\n"))
                ),
                "firstChangedLine": rng.randint(1, 900),
            }
        else:
            text = (
                f"Successfully wrote {len(call['arguments'].get('content', ''))} bytes to {call['arguments']['path']}"
            )
        msg = tool_result_message(
            call["id"],
            name,
            [text_block(text)],
            self.t,
            is_error=is_error,
            details=MISSING if details is None else details,
        )
        return self.message(msg)

    def turn(self, max_rounds: int = 12) -> None:
        rng = self.rng
        self.user()
        rounds = min(max_rounds, int(rng.expovariate(1 / 4.0)))
        for _ in range(rounds):
            calls = self.assistant(final=False)
            attempt = [self.leaf]
            results = [self.tool_result(call) for call in calls]
            attempt.extend(results)
            r = rng.random()
            if r < 0.01:  # pi hides a failed, truncated attempt from the model
                for target in attempt:
                    self.context_edit(target, None)
            elif r < 0.03 and results:  # an extension shortens a tool's output
                self.context_edit(rng.choice(results), {"content": [text_block("[output elided]")]})
        self.assistant(final=True)
        if self.model[0] in ("anthropic", "openai") and rng.random() < 0.15:
            # cacheWarming "idle" (pi 1.5.1's default): refreshes between runs, often the last line.
            for _ in range(rng.randint(1, 3)):
                self.usage()

    # -- pi 1.6 ---------------------------------------------------------------------------

    def system(self, cwd: str) -> str:
        """pi 1.6's first system message: every prompt section and every tool declared."""
        self.sections = pi16.system_sections(self.rng, self.c.prose, cwd)
        return self.message(pi16.system_message(self.sections, self._tick(1, 40)), "system")

    def usage(self) -> str:
        """A cache-warming refresh: the whole context read from the cache, one token out."""
        provider, model, _api, price_in, price_out = self.model
        cache_read = self.context_tokens
        inp = self.rng.randint(1, 8)
        c_in = _money(inp * price_in / 1e6)
        c_cr = _money(cache_read * price_in / 10 / 1e6)
        c_out = _money(price_out / 1e6)
        usage = {
            "input": inp,
            "output": 1,
            "cacheRead": cache_read,
            "cacheWrite": 0,
            "totalTokens": inp + 1 + cache_read,
            "cost": {
                "input": c_in,
                "output": c_out,
                "cacheRead": c_cr,
                "cacheWrite": 0,
                "total": _money(c_in + c_out + c_cr),
            },
        }
        self._tick(240_000, 290_000)  # a refresh comes just before the cache would expire
        entry_id = self._new_id()
        obj = pi16.usage_entry(entry_id, self.leaf, iso_ms(self.t), provider, model, usage)
        return self._emit(obj, entry_id, "meta")

    def context_edit(self, target: str, replacement: dict | None) -> str:
        entry_id = self._new_id()
        return self._emit(pi16.context_edit(entry_id, self.leaf, self._stamp(), target, replacement), entry_id, "meta")

    def start(self, cwd: str) -> None:
        """pi 1.6 starts a new session with a model change, a thinking level change and the
        system message."""
        self.model_change()
        self.thinking_change()
        self.system(cwd)

    def data(self) -> bytes:
        return b"".join(self.lines)


# --------------------------------------------------------------------------------------------
# The two data sets.

_CORPUS: Corpus | None = None


def _corpus(seed: int) -> Corpus:
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = Corpus(seed)
    return _CORPUS


# Fixed reference time: generated sessions end before this moment.
_END_MS = 1_777_593_600_000  # 2026-05-01T00:00:00Z


def build_big(params: Params) -> tuple[str, bytes]:
    """The big session: (file name, bytes)."""
    rng = random.Random(params.seed * 7 + 1)
    corpus = _corpus(params.seed)
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
    corpus = _corpus(seed)
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


# --------------------------------------------------------------------------------------------
# Cache folder.


def default_root() -> Path:
    return Path(os.environ.get("PITUI_BENCH_DIR") or Path(tempfile.gettempdir()) / "pitui-bench")


@dataclass
class Dataset:
    root: Path
    big: Path
    agent_dir: Path
    sessions: int
    tree_bytes: int
    big_bytes: int
    big_entries: int
    query: str

    def to_json(self) -> dict:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self).items()}


_TREE_SPECS: list[SessionSpec] = []
_TREE_DIR: Path | None = None
_SEED = 0


def _tree_job(index: int) -> tuple[str, int]:
    assert _TREE_DIR is not None
    return build_session(_TREE_SPECS[index], _TREE_SPECS, _TREE_DIR, _SEED)


def _big_job(params: Params, out: Path) -> tuple[str, int]:
    name, data = build_big(params)
    (out / "big").mkdir(parents=True, exist_ok=True)
    path = out / "big" / name
    path.write_bytes(data)
    return str(path), len(data)


def generate(params: Params, out: Path, *, workers: int | None = None, log=print) -> Dataset:
    global _TREE_SPECS, _TREE_DIR, _SEED
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    started = time.monotonic()
    _corpus(params.seed)  # built once, before the workers fork, and shared with them
    log(f"corpus ready in {time.monotonic() - started:.1f}s")
    _TREE_SPECS = plan_tree(params)
    _TREE_DIR = out / "agent" / "sessions"
    _SEED = params.seed
    _TREE_DIR.mkdir(parents=True)
    workers = workers or max(1, os.cpu_count() or 1)
    # Biggest first, so that the pool ends evenly.
    order = sorted(range(len(_TREE_SPECS)), key=lambda i: -_TREE_SPECS[i].target)
    ctx = get_context("fork")
    with ctx.Pool(workers) as pool:
        big = pool.apply_async(_big_job, (params, out))
        tree_bytes = 0
        for done, (_, size) in enumerate(pool.imap_unordered(_tree_job, order, chunksize=4), 1):
            tree_bytes += size
            if done % 500 == 0:
                log(f"{done}/{len(order)} sessions, {tree_bytes / 1e6:.0f} MB, {time.monotonic() - started:.0f}s")
        big_path, big_bytes = big.get()
    data = Dataset(
        out,
        Path(big_path),
        out / "agent",
        len(_TREE_SPECS),
        tree_bytes,
        big_bytes,
        params.big_entries,
        SEARCH_QUERY,
    )
    manifest = {
        "key": params.key(),
        "params": asdict(params),
        "dataset": data.to_json(),
        "seconds": round(time.monotonic() - started, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    log(
        f"generated in {manifest['seconds']}s: big {big_bytes / 1e6:.0f} MB, "
        f"tree {len(_TREE_SPECS)} sessions {tree_bytes / 1e6:.0f} MB"
    )
    return data


def ensure(preset: str = "full", root: Path | None = None, *, force: bool = False, log=print) -> Dataset:
    """The data set of a preset, generated unless the cache holds it with the same parameters."""
    params = PRESETS[preset]
    out = (root or default_root()) / preset
    manifest_path = out / "manifest.json"
    if not force and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest.get("key") == params.key():
            d = manifest["dataset"]
            data = Dataset(
                Path(d["root"]),
                Path(d["big"]),
                Path(d["agent_dir"]),
                d["sessions"],
                d["tree_bytes"],
                d["big_bytes"],
                d["big_entries"],
                d["query"],
            )
            if data.big.exists() and data.agent_dir.exists():
                return data
    free = shutil.disk_usage(out.parent if out.parent.exists() else Path(tempfile.gettempdir())).free
    need = 700e6 if preset == "full" else 80e6
    if free < need * 1.5:
        raise SystemExit(f"not enough disk space in {out.parent}: {free / 1e9:.1f} GB free, need ~{need / 1e9:.1f}")
    out.parent.mkdir(parents=True, exist_ok=True)
    return generate(params, out, log=log)


def iter_lines(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        yield from f


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data: 10,000 entries, 200 sessions")
    ap.add_argument("--out", type=Path, help="cache folder (default $TMPDIR/pitui-bench)")
    ap.add_argument("--force", action="store_true", help="generate even if the cache is up to date")
    ap.add_argument(
        "--verify",
        action="store_true",
        help="check with node that every line is byte-identical to JSON.stringify(JSON.parse(line))",
    )
    args = ap.parse_args(argv)
    data = ensure(
        "quick" if args.quick else "full", args.out, force=args.force, log=lambda m: print(m, file=sys.stderr)
    )
    print(json.dumps(data.to_json(), indent=1))
    if args.verify:
        return verify(data)
    return 0


_VERIFY_JS = r"""
const fs = require("fs");
let bad = 0, lines = 0;
for (const file of process.argv.slice(1)) {
  const text = fs.readFileSync(file, "utf8");
  if (!text.endsWith("\n")) { console.log("no final newline: " + file); bad++; }
  for (const line of text.slice(0, -1).split("\n")) {
    lines++;
    const again = JSON.stringify(JSON.parse(line));
    if (again !== line) { if (bad++ < 5) console.log("differs in " + file + ":\n" + line.slice(0, 300)); }
  }
}
console.log(JSON.stringify({lines, bad}));
process.exit(bad ? 1 : 0);
"""


def verify(data: Dataset) -> int:
    import subprocess

    files = [str(data.big), *sorted(str(p) for p in data.agent_dir.glob("sessions/*/*.jsonl"))]
    rc = 0
    for i in range(0, len(files), 200):
        rc |= subprocess.run(["node", "-e", _VERIFY_JS, *files[i : i + 200]]).returncode
    return rc


if __name__ == "__main__":
    sys.exit(main())
