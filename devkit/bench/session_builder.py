"""One generated session: entries appended the way pi 1.6.0 appends them, with messages, tool
calls and results, branches, labels, compactions and pi 1.6's own entries (``pi16.py``)."""

from __future__ import annotations

import math
import random

import orjson

from devkit.bench import pi16
from devkit.bench.text_corpus import Corpus, file_path, lines_slice, text_slice
from devkit.builder import (
    MISSING,
    assistant_message,
    branch_summary,
    compaction,
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
)
from pitui.store.js import iso_ms

# Words of the benchmark's search query. They are kept out of the ordinary vocabulary and put
# into a few percent of the sessions, so a word search has a selective query to answer.
SEARCH_QUERY = "websocket reconnect"
_QUERY_SENTENCES = (
    "The websocket reconnect loop gives up after the third backoff, can you look at why?",
    "I think the websocket reconnect logic drops queued messages when the server restarts.",
    "Add a test for the websocket reconnect path with a flaky network.",
)

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

MODELS = [
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3.0, 15.0),
    ("anthropic", "claude-opus-4-5", "anthropic-messages", 5.0, 25.0),
    ("openai", "gpt-5.1-codex", "openai-responses", 1.25, 10.0),
    ("google", "gemini-2.5-pro", "google-generative-ai", 1.25, 10.0),
]
_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"]

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


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
        self.model = MODELS[0]
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
        self.model = self.rng.choice(MODELS)
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
            + text_slice(rng, self.c.prose, rng.randint(300, 800))
            + "\n\n## Progress\n"
            + text_slice(rng, self.c.prose, rng.randint(800, 3000))
            + "\n\n## Next steps\n"
            + text_slice(rng, self.c.prose, rng.randint(200, 600))
        )
        tokens = rng.randint(150_000, 195_000)
        details = {
            "readFiles": [file_path(rng) for _ in range(rng.randint(2, 15))],
            "modifiedFiles": [file_path(rng) for _ in range(rng.randint(0, 8))],
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
            summary = "The user explored a different approach: " + text_slice(rng, self.c.prose, rng.randint(200, 1200))
            details = {
                "readFiles": [file_path(rng) for _ in range(rng.randint(0, 6))],
                "modifiedFiles": [file_path(rng) for _ in range(rng.randint(0, 4))],
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
        text = text_slice(rng, self.c.prose, self._n(30, 900))
        if rng.random() < 0.06:
            text += "\n\n```\n" + lines_slice(rng, self.c.code, self._n(500, 6000)) + "```"
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
            name, args = "read", {"path": file_path(rng)}
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
                cmd += " " + file_path(rng)
            name, args = "bash", {"command": cmd}
            if rng.random() < 0.2:
                args["timeout"] = rng.choice([30, 60, 120])
        elif r < 0.9:
            name, args = (
                "edit",
                {
                    "path": file_path(rng),
                    "oldText": lines_slice(rng, self.c.code, self._n(40, 1500)),
                    "newText": lines_slice(rng, self.c.code, self._n(40, 1800)),
                },
            )
        else:
            name, args = (
                "write",
                {"path": file_path(rng), "content": lines_slice(rng, self.c.code, self._n(200, 8000))},
            )
        return tool_call(call_id, name, args)

    def assistant(self, final: bool) -> list[dict]:
        rng = self.rng
        provider, model, api, _pi, _po = self.model
        self._tick(2_000, 60_000)
        content: list[dict] = []
        if rng.random() < 0.7:
            sig = text_slice(rng, self.c.b64, self._n(150, 1000))
            content.append(thinking_block(text_slice(rng, self.c.prose, self._n(80, 2500)), sig))
        if final or rng.random() < 0.45:
            content.append(text_block(text_slice(rng, self.c.prose, self._n(40, 2500 if final else 600))))
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
            text = f"Error: {text_slice(rng, self.c.prose, self._n(30, 300))}"
        elif name == "read":
            text = lines_slice(rng, self.c.code, self._n(300, 12_000) if not big else self._n(20_000, 100_000))
        elif name == "bash":
            text = lines_slice(rng, self.c.shell, self._n(20, 4_000) if not big else self._n(15_000, 60_000))
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
            diff = lines_slice(rng, self.c.code, self._n(100, 2500))
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
