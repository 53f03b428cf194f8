"""A deterministic generator of random pi sessions (format v3), for conformance tests that load
many files with pitui and with pi and compare the results.

    generate_session(seed, n_entries) -> bytes     one session file
    write_corpus(folder, count, seed) -> [paths]    many, named as pi names them

The files look like pi's: a header, then (usually) ``model_change`` and
``thinking_level_change``, conversations with tool calls and results, ``!`` commands, and every
other entry type: labels (set, changed, cleared), session names (also cleared), compactions with
``firstKeptEntryId`` or with a ``retainedTail`` key (also empty; no pi reads it), branch summaries (also empty and at
the root), custom entries and custom messages, model and thinking changes. Most entries extend
the current leaf; some start a branch from a random earlier entry (with or without a branch
summary, as pi's /tree does), and a few start a new root. A few lines are bad (garbage, a cut
JSON object, NUL bytes, blank lines) and the last line is sometimes torn.

Parents are always earlier entries, so there are no cycles, and no line is JSON ``null`` and no
``message`` is null, since pi 0.73.1 cannot load such files. The entries are devkit.builder's,
written with orjson; nothing here reads them with pitui.
"""

from __future__ import annotations

import base64
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from devkit.builder import (
    MISSING,
    assistant_message,
    bash_execution_message,
    branch_summary,
    compaction,
    custom,
    custom_message,
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

_WORDS = (
    "the cache test file function error config server request response build deploy branch commit "
    "parser token stream buffer index query schema migration retry timeout handler route client "
    "value list dict string path folder module import type check lint format refactor rename fix "
    "add remove update read write open close start stop run fail pass slow fast small large why how"
)
WORDS = tuple(_WORDS.split())
ODD_TEXT = ["café", "naïve", "東京", "😀", "👩‍💻", "e\u0301", "\u2028", "Ω", "→", "«quote»", "tab\there"]
MODELS = [
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
    ("anthropic", "claude-opus-4-5", "anthropic-messages"),
    ("openai", "gpt-5.1-codex", "openai-responses"),
    ("google", "gemini-2.5-pro", "google-generative-ai"),
]
LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
TOOLS = ["read", "edit", "write", "bash", "grep"]
BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)
TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC"


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        r = self.rng
        self.t = datetime(2025, 6, 1, tzinfo=UTC) + timedelta(milliseconds=r.randint(0, 300 * 86400 * 1000))
        self.entries: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self.leaf: str | None = None
        self.provider, self.model, self.api = r.choice(MODELS)
        self.pending_calls: list[tuple[str, str]] = []

    # ---- basics -------------------------------------------------------------------------

    def words(self, lo: int, hi: int) -> str:
        r = self.rng
        out = r.choices(WORDS, k=r.randint(lo, hi))
        if r.random() < 0.15:
            out.insert(r.randrange(len(out) + 1), r.choice(ODD_TEXT))
        text = " ".join(out)
        if not text:
            return ""
        if r.random() < 0.2:
            text += "\n\n" + " ".join(r.choices(WORDS, k=r.randint(3, 20)))
        return text[0].upper() + text[1:]

    def tick(self, lo: float = 0.5, hi: float = 30.0) -> None:
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))

    def iso(self) -> str:
        t = self.t
        if self.rng.random() < 0.01:  # a second writer with a clock a little behind
            t -= timedelta(seconds=self.rng.randint(1, 120))
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"

    def ms(self) -> int:
        return int(self.t.timestamp() * 1000)

    def new_id(self) -> str:
        while True:
            i = f"{self.rng.getrandbits(32):08x}"
            if i not in self.by_id:
                return i

    def add(self, e: dict[str, Any]) -> None:
        self.entries.append(e)
        self.by_id[e["id"]] = e
        self.leaf = e["id"]

    def path(self) -> list[dict[str, Any]]:
        out, cur = [], self.leaf
        while cur is not None and cur in self.by_id:
            out.append(self.by_id[cur])
            cur = self.by_id[cur]["parentId"]
        return out[::-1]

    def usage(self, zero: bool = False) -> dict[str, Any]:
        r = self.rng
        if zero:
            i = o = cr = cw = 0
        else:
            i, o, cr, cw = r.randint(1, 900), r.randint(5, 4000), r.randint(0, 150_000), r.randint(0, 9000)
        usage: dict[str, Any] = {
            "input": i,
            "output": o,
            "cacheRead": cr,
            "cacheWrite": cw,
            "totalTokens": i + o + cr + cw,
        }
        cost = {"input": i * 3e-6, "output": o * 15e-6, "cacheRead": cr * 3e-7, "cacheWrite": cw * 3.75e-6}
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        usage["cost"] = cost
        if r.random() < 0.05:  # old files lack totalTokens
            del usage["totalTokens"]
        return usage

    # ---- messages -------------------------------------------------------------------------

    def user(self) -> dict[str, Any]:
        r = self.rng
        self.tick(3, 120)
        text = self.words(2, 40)
        content: Any
        if r.random() < 0.1:
            content = text  # plain string content (older pi)
        else:
            content = [text_block(text)]
            if r.random() < 0.04:
                content.append({"type": "image", "data": TINY_PNG, "mimeType": "image/png"})
        return user_message(content, self.ms())

    def assistant(self) -> dict[str, Any]:
        r = self.rng
        self.tick(1, 40)
        content: list[dict[str, Any]] = []
        if r.random() < 0.35:
            sig = base64.b64encode(r.randbytes(r.randint(16, 96))).decode()
            content.append(thinking_block(self.words(5, 60), sig))
        if r.random() < 0.7:
            content.append(text_block(self.words(1, 80)))
        roll = r.random()
        calls = []
        if roll < 0.45:
            for _ in range(1 if r.random() < 0.8 else r.randint(2, 3)):
                name = r.choice(TOOLS)
                call_id = "toolu_01" + "".join(
                    r.choices("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789", k=22)
                )
                args: dict[str, Any] = {"path": f"src/{r.choice(WORDS)}.py"}
                if name == "bash":
                    args = {"command": f"{r.choice(['pytest -q', 'ls', 'git status', 'make'])} {r.choice(WORDS)}"}
                elif name == "edit":
                    args["edits"] = [{"oldText": self.words(1, 6), "newText": self.words(1, 8)}]
                elif name == "write":
                    args["content"] = self.words(5, 60)
                elif name == "grep":
                    args = {"pattern": r.choice(WORDS), "path": "src"}
                content.append(tool_call(call_id, name, args))
                calls.append((call_id, name))
            stop = "toolUse"
        elif roll < 0.9:
            stop = "stop"
        elif roll < 0.94:
            stop = "aborted"
        elif roll < 0.98:
            stop = "error"
            content = []
        else:
            stop = "length"
        msg = assistant_message(
            content,
            api=self.api,
            provider=self.provider,
            model=self.model,
            usage=self.usage(zero=stop == "error"),
            stop=stop,
            timestamp=self.ms(),
        )
        if stop == "aborted":
            msg["errorMessage"] = "Request was aborted."
        elif stop == "error":
            msg["errorMessage"] = r.choice(
                [
                    '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":null}',
                    "terminated",
                    "Connection error.",
                ]
            )
        self.pending_calls = calls
        self.tick(1, 60)
        return msg

    def tool_result(self, call_id: str, name: str) -> dict[str, Any]:
        r = self.rng
        self.tick(0.01, 5)
        is_error = r.random() < 0.12
        text = self.words(0, 120) or "(no output)"
        if is_error and name == "bash":
            text += f"\n\nCommand exited with code {r.randint(1, 2)}"
        details = {"diff": "-1 old\n+1 new", "firstChangedLine": 1} if name == "edit" and not is_error else MISSING
        return tool_result_message(call_id, name, [text_block(text)], self.ms(), is_error=is_error, details=details)

    def bash_execution(self) -> dict[str, Any]:
        r = self.rng
        self.tick(2, 60)
        return bash_execution_message(
            r.choice(["git diff --stat", "ls -la", "make test", "cat README.md"]),
            self.words(0, 40),
            r.choice([0, 0, 0, 1, 2]),
            self.ms(),
            cancelled=r.random() < 0.05,
            exclude=r.random() < 0.3,
        )

    def message(self, msg: dict[str, Any]) -> None:
        self.add(message(self.new_id(), self.leaf, self.iso(), msg))

    # ---- entry kinds ----------------------------------------------------------------------

    def model_change(self) -> None:
        self.tick(0.01, 20)
        self.provider, self.model, self.api = self.rng.choice(MODELS)
        self.add(model_change(self.new_id(), self.leaf, self.iso(), self.provider, self.model))

    def thinking_change(self) -> None:
        self.tick(0.001, 20)
        i, stamp = self.new_id(), self.iso()
        self.add(thinking_level_change(i, self.leaf, stamp, self.rng.choice(LEVELS)))

    def label(self) -> None:
        r = self.rng
        self.tick(1, 30)
        i, stamp = self.new_id(), self.iso()
        if r.random() < 0.02 or not self.by_id:
            target = f"{r.getrandbits(32):08x}"  # a target that is not in the file
        else:
            labelled = [x["id"] for x in self.entries if x["type"] == "label"]
            pool = labelled if labelled and r.random() < 0.05 else list(self.by_id)
            target = r.choice(pool)
        roll = r.random()
        value = MISSING  # no label key (cleared, as pi writes it)
        if roll < 0.7:
            value = r.choice(["checkpoint", "bug", "good", "v1", "try-2", "repro", "✓ done", self.words(1, 3)])
        elif roll < 0.85:
            value = ""  # cleared
        self.add(label(i, self.leaf, stamp, target, value))

    def session_info(self) -> None:
        self.tick(1, 30)
        i, stamp = self.new_id(), self.iso()
        self.add(session_info(i, self.leaf, stamp, "" if self.rng.random() < 0.15 else self.words(1, 6)))

    def custom(self) -> None:
        r = self.rng
        self.tick(0.01, 5)
        custom_type = r.choice(["todo", "plan-mode", "timer"])
        data: Any = MISSING
        if r.random() < 0.8:
            data = {"items": [self.words(1, 4) for _ in range(r.randint(0, 3))], "n": r.randint(0, 9)}
        self.add(custom(self.new_id(), self.leaf, self.iso(), custom_type, data))

    def custom_message(self) -> None:
        r = self.rng
        self.tick(0.01, 5)
        content: Any = self.words(1, 30)
        if r.random() < 0.4:
            content = [{"type": "text", "text": content}]
            if r.random() < 0.2:
                content.append({"type": "image", "data": TINY_PNG, "mimeType": "image/png"})
        custom_type = r.choice(["git-context", "reminder"])
        display = r.random() < 0.7
        details = {"source": r.choice(WORDS)} if r.random() < 0.5 else MISSING
        self.add(custom_message(self.new_id(), self.leaf, self.iso(), custom_type, content, display, details))

    def compaction(self) -> None:
        r = self.rng
        path = self.path()
        last = max((i for i, x in enumerate(path) if x["type"] == "compaction"), default=-1)
        candidates = [
            x for x in path[last + 1 :] if x["type"] == "message" and x["message"].get("role") in ("user", "assistant")
        ]
        self.tick(10, 60)
        i, stamp = self.new_id(), self.iso()
        summary = "## Goal\n" + self.words(3, 30) + "\n\n## Progress\n- " + self.words(3, 20)
        first_kept = None
        if candidates and r.random() < 0.9:
            first_kept = r.choice(candidates[len(candidates) // 2 :])["id"]
        elif self.entries and r.random() < 0.5:
            first_kept = r.choice(self.entries)["id"]  # possibly not on the path
        form = r.random()
        tokens = r.randint(20_000, 190_000)
        details: Any = MISSING
        if r.random() < 0.8:
            details = {
                "readFiles": [f"src/{w}.py" for w in r.sample(WORDS, 2)],
                "modifiedFiles": [f"src/{r.choice(WORDS)}.py"],
            }
        from_hook = True if r.random() < 0.05 else MISSING
        tail: Any = MISSING
        if form < 0.4:  # newer format: the kept messages travel with the compaction
            ids = [x["id"] for x in path]
            tail = []
            if first_kept in ids and r.random() < 0.85:
                tail = [x["message"] for x in path[ids.index(first_kept) :] if x["type"] == "message"]
        kept = first_kept if first_kept is not None and not (form < 0.15) else MISSING
        self.add(compaction(i, self.leaf, stamp, summary, kept, tokens, tail, details=details, from_hook=from_hook))

    def branch(self) -> None:
        """Go back to a random earlier entry, as pi's /tree does, maybe leaving a summary."""
        r = self.rng
        roll = r.random()
        if roll < 0.04:
            target = None  # before the first entry
        else:
            path = self.path()
            pool = path if path and r.random() < 0.7 else self.entries
            target = r.choice(pool)["id"] if pool else None
        old_leaf = self.leaf
        self.leaf = target
        if r.random() < 0.35 and old_leaf != target:
            self.tick(5, 60)
            i, stamp = self.new_id(), self.iso()
            summary = "" if r.random() < 0.1 else BRANCH_SUMMARY_PREAMBLE + self.words(3, 40)
            details: Any = MISSING
            if r.random() < 0.85:
                details = {"readFiles": [], "modifiedFiles": [f"src/{r.choice(WORDS)}.py"]}
            self.add(branch_summary(i, self.leaf, stamp, target if target is not None else "root", summary, details))

    def turn(self) -> None:
        """A user prompt and the agent's replies until it stops (bounded by the caller)."""
        self.message(self.user())
        if self.rng.random() < 0.05:
            self.custom_message()

    def step(self) -> None:
        """One entry (or a few) of the kind a real session would have next."""
        r = self.rng
        if self.pending_calls:
            call_id, name = self.pending_calls.pop(0)
            self.message(self.tool_result(call_id, name))
            return
        last = self.by_id.get(self.leaf) if self.leaf is not None else None
        last_role = last["message"].get("role") if last and last["type"] == "message" else None
        if last_role in ("user", "toolResult") and r.random() < 0.92:
            self.message(self.assistant())
            return
        roll = r.random()
        if roll < 0.55:
            self.turn()
        elif roll < 0.62:
            self.branch()
        elif roll < 0.70:
            self.label()
        elif roll < 0.74:
            self.session_info()
        elif roll < 0.78:
            self.compaction()
        elif roll < 0.82:
            self.custom()
        elif roll < 0.85:
            self.custom_message()
        elif roll < 0.88:
            self.model_change()
        elif roll < 0.91:
            self.thinking_change()
        elif roll < 0.96:
            self.message(self.bash_execution())
        else:
            self.message(self.assistant())


def generate_session(seed: int, n_entries: int) -> bytes:
    """One session file: a v3 header and about ``n_entries`` entries (exactly that many lines
    after the header, unless a bad line replaced one), deterministic for ``seed``."""
    g = _Gen(seed)
    r = g.rng
    sid, stamp = uuid7(r, g.ms()), g.iso()
    cwd = r.choice(["/home/user/projects/weatherapp", "/home/user/projects/shortlinks", "/srv/app", "/tmp/x y"])
    head = header(3, cwd, id=sid, timestamp=stamp)
    if r.random() < 0.1:
        head["parentSession"] = (
            f"/home/user/.pi/agent/sessions/--srv-app--/2025-05-01T10-00-00-000Z_{uuid7(r, g.ms())}.jsonl"
        )
    if n_entries > 0 and r.random() < 0.9:
        g.model_change()
    if len(g.entries) < n_entries and r.random() < 0.9:
        g.thinking_change()
    while len(g.entries) < n_entries:
        g.step()
    entries = g.entries[:n_entries]

    out = [orjson.dumps(head) + b"\n"]
    bad_rate = 0.0 if r.random() < 0.5 else r.uniform(0.002, 0.03)
    for e in entries:
        data = orjson.dumps(e)
        if r.random() < bad_rate:
            kind = r.random()
            if kind < 0.3:
                out.append(b"garbage: " + r.choice(WORDS).encode() + b"\n")  # an extra bad line
            elif kind < 0.5:
                out.append(b"\n" if r.random() < 0.5 else b"   \t\n")  # blank lines, harmless
            elif kind < 0.8:
                out.append(data[: r.randint(1, max(1, len(data) - 1))] + b"\n")  # this entry is lost
                continue
            else:
                out.append(b"\x00" * r.randint(1, 64) + b"\n")
        out.append(data + b"\n")
    if len(out) > 2 and r.random() < 0.05:  # torn last line
        last = out[-1].rstrip(b"\n")
        out[-1] = last[: r.randint(1, max(1, len(last) - 1))]
    return b"".join(out)


def write_corpus(folder: str | Path, count: int, seed: int = 0) -> list[Path]:
    """Write ``count`` sessions into ``folder`` (flat), named as pi names its files
    (``<header timestamp with : and . as ->_<id>.jsonl``); sizes from 1 to ~3000 entries, most small."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    r = random.Random(seed)
    paths = []
    for k in range(count):
        n = int(min(3000, r.lognormvariate(3.5, 1.2))) + 1
        data = generate_session(seed * 100_003 + k, n)
        head = orjson.loads(data.split(b"\n", 1)[0])
        path = folder / file_name(head["timestamp"], head["id"])
        path.write_bytes(data)
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("usage: python -m devkit.corpus FOLDER COUNT [SEED]", file=sys.stderr)
        sys.exit(2)
    for p in write_corpus(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0):
        print(p)
