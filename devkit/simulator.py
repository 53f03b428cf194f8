"""A small simulator of pi sessions, used by ``devkit.make_demo`` to write realistic session files.

It keeps a clock, a seeded random source, a virtual project folder and pi's session state (entries,
leaf, labels, name) and appends entries the way pi's SessionManager does: ``parentId`` is the
current leaf, the leaf moves to every new entry, labels hang off the leaf, a branch summary is
parented at the entry navigated to. Tool calls are executed against the virtual folder (read,
edit, write, grep), so tool results and edit diffs match the files; bash output is given.
"""

from __future__ import annotations

import base64
import os
import random
import re
import string
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

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
)
from devkit.builder import uuid7 as session_uuid7
from devkit.pijson import dumps, line
from devkit.tool_calls import Call, pi_diff

BASE62 = string.digits + string.ascii_letters

# Prices per million tokens, as in pi-ai's model table: input, output, cacheRead, cacheWrite.
MODELS: dict[tuple[str, str], dict[str, Any]] = {
    ("anthropic", "claude-opus-4-5"): {"api": "anthropic-messages", "cost": (5, 25, 0.5, 6.25)},
    ("anthropic", "claude-sonnet-4-5"): {"api": "anthropic-messages", "cost": (3, 15, 0.3, 3.75)},
    ("openai", "gpt-5.1-codex"): {"api": "openai-responses", "cost": (1.25, 10, 0.125, 0)},
}

SYSTEM_PROMPT_TOKENS = 3_912  # pi's system prompt plus tool definitions, roughly

BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"
)


def tokens(text: str) -> int:
    return max(1, round(len(text) / 3.6))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def parse_iso(s: str) -> datetime:
    return datetime.fromisoformat(s.replace("Z", "+00:00")).astimezone(UTC)


def file_ops_text(read_files: list[str], modified_files: list[str]) -> str:
    """pi's formatFileOperations: the file lists appended to generated summaries."""
    parts = []
    if read_files:
        parts.append("<read-files>\n" + "\n".join(read_files) + "\n</read-files>")
    if modified_files:
        parts.append("<modified-files>\n" + "\n".join(modified_files) + "\n</modified-files>")
    return "\n\n" + "\n\n".join(parts) if parts else ""


# --------------------------------------------------------------------------------------------------
# The session


@dataclass
class Session:
    seed: int
    cwd: str
    start: str
    files: dict[str, str]
    parent_session: str | None = None
    # pi 1.6's records: a system message before the first request, ``thinkingLevel`` on every
    # assistant message, ``durationMs`` on tool results, a compaction's ``systemMessage``.
    system: dict[str, Any] | None = None  # {"sections": ..., "toolsAdded": ...}; None: pi 0.73
    rng: random.Random = field(init=False)
    t: datetime = field(init=False)
    header: dict[str, Any] = field(init=False)
    entries: list[dict[str, Any]] = field(default_factory=list)
    leaf: str | None = None
    labels: dict[str, str] = field(default_factory=dict)  # what pi should report
    label_times: dict[str, str] = field(default_factory=dict)
    name: str | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.t = parse_iso(self.start)
        self.by_id: dict[str, dict[str, Any]] = {}
        self.provider = "anthropic"
        self.model_id = "claude-sonnet-4-5"
        self.ctx_at: dict[str | None, int] = {None: SYSTEM_PROMPT_TOKENS}
        self.cached = 0
        self.calls: dict[str, Call] = {}
        self.thinking = "off"
        extra = {} if self.parent_session is None else {"parentSession": self.parent_session}
        self.header = header(3, self.cwd, id=self.uuid7(), timestamp=iso(self.t), **extra)

    # ---- ids, clock -------------------------------------------------------------------------

    def uuid7(self) -> str:
        """pi 0.73 session ids are UUIDv7 (:func:`devkit.builder.uuid7`), here at the session's
        clock, with the bits from its seeded random source."""
        return session_uuid7(self.rng, ms(self.t))

    def new_id(self) -> str:
        while True:
            i = f"{self.rng.getrandbits(32):08x}"
            if i not in self.by_id:
                return i

    def rand62(self, n: int) -> str:
        return "".join(self.rng.choice(BASE62) for _ in range(n))

    def tick(self, lo: float, hi: float) -> datetime:
        self.t += timedelta(milliseconds=self.rng.randint(int(lo * 1000), int(hi * 1000)))
        return self.t

    @property
    def ctx(self) -> int:
        return self.ctx_at[self.leaf]

    def _append(self, entry: dict[str, Any], added_tokens: int = 0) -> str:
        self.entries.append(entry)
        self.by_id[entry["id"]] = entry
        self.ctx_at[entry["id"]] = self.ctx + added_tokens
        self.leaf = entry["id"]
        return entry["id"]

    def _message(self, msg: dict[str, Any], added_tokens: int = 0) -> str:
        return self._append(message(self.new_id(), self.leaf, iso(self.t), msg), added_tokens)

    # ---- settings -----------------------------------------------------------------------------

    def model_change(self, provider: str, model_id: str) -> str:
        # A new session writes its model and thinking level right after the header.
        self.tick(0.002, 0.02) if not self.entries else self.tick(0.5, 4)
        self.provider, self.model_id = provider, model_id
        return self._append(model_change(self.new_id(), self.leaf, iso(self.t), provider, model_id))

    def thinking_level(self, level: str) -> str:
        first = len(self.entries) == 1 and self.entries[0]["type"] == "model_change"
        self.tick(0.001, 0.004) if first else self.tick(0.5, 4)
        self.thinking = level
        return self._append(thinking_level_change(self.new_id(), self.leaf, iso(self.t), level))

    # ---- messages -----------------------------------------------------------------------------

    def _system_message(self, timestamp: int) -> dict[str, Any] | None:
        """The prompt and tools the request declares, as pi 1.6 records them (key order
        ``role,content,sections,timestamp,toolsAdded``), if none is on the path yet."""
        if self.system is None or any(e.get("message", {}).get("role") == "system" for e in self.path()):
            return None
        sections = {k: v.replace("{cwd}", self.cwd) for k, v in self.system["sections"].items()}
        return {"role": "system", "content": "", "sections": sections, "timestamp": timestamp, **self._tools()}

    def _tools(self) -> dict[str, Any]:
        return {"toolsAdded": self.system["toolsAdded"]} if self.system is not None else {}

    def current_system(self, timestamp: int) -> dict[str, Any] | None:
        """pi-ai's ``getCurrentSystemMessage`` of the path (one system message here), with
        ``timestamp``: a compaction's checkpoint (``role,content,sections,toolsAdded,timestamp``)."""
        found = next((e["message"] for e in self.path() if e.get("message", {}).get("role") == "system"), None)
        if found is None:
            return None
        return {"role": "system", "content": "", "sections": found["sections"], **self._tools(), "timestamp": timestamp}

    def user(self, text: str, images: list[str] = (), think: tuple[float, float] = (8, 45)) -> str:
        self.tick(*think)
        content: list[dict[str, Any]] = [text_block(text)]
        for data in images:
            content.append({"type": "image", "data": data, "mimeType": "image/png"})
        msg = user_message(content, ms(self.t))
        self.tick(0.001, 0.004)
        system = self._system_message(msg["timestamp"])
        if system is not None:  # written as the first request is built, before its prompt
            self._message(system)
        return self._message(msg, tokens(text) + 1_600 * len(images))

    def _tool_call_id(self) -> str:
        if self.provider == "openai":
            return f"call_{self.rand62(24)}|fc_{self.rng.getrandbits(200):050x}"
        return "toolu_01" + self.rand62(22)

    def _usage(self, out_tokens: int, zero: bool = False) -> dict[str, Any]:
        if zero:
            usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
        elif self.provider == "openai":
            total_in = self.ctx
            cache_read = min(self.cached, total_in) // 128 * 128
            usage = {
                "input": total_in - cache_read,
                "output": out_tokens,
                "cacheRead": cache_read,
                "cacheWrite": 0,
                "totalTokens": 0,
            }
            self.cached = total_in
        else:
            total_in = self.ctx
            small = self.rng.randint(1, 9)
            cache_read = min(self.cached, total_in - small)
            usage = {
                "input": small,
                "output": out_tokens,
                "cacheRead": cache_read,
                "cacheWrite": total_in - small - cache_read,
                "totalTokens": 0,
            }
            self.cached = total_in
        usage["totalTokens"] = usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"]
        price = MODELS[(self.provider, self.model_id)]["cost"]
        cost = {
            "input": (price[0] / 1000000) * usage["input"],
            "output": (price[1] / 1000000) * usage["output"],
            "cacheRead": (price[2] / 1000000) * usage["cacheRead"],
            "cacheWrite": (price[3] / 1000000) * usage["cacheWrite"],
        }
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        usage["cost"] = cost
        return usage

    def _summary_usage(self, prompt: int, out: int) -> dict[str, Any]:
        price = MODELS[(self.provider, self.model_id)]["cost"]
        usage: dict[str, Any] = {"input": prompt, "output": out, "cacheRead": 0, "cacheWrite": 0}
        usage["totalTokens"] = prompt + out
        cost = {
            "input": (price[0] / 1000000) * prompt,
            "output": (price[1] / 1000000) * out,
            "cacheRead": 0,
            "cacheWrite": 0,
        }
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        usage["cost"] = cost
        return usage

    def _thinking_block(self, text: str) -> dict[str, Any]:
        if self.provider == "openai":
            item = {
                "type": "reasoning",
                "id": f"rs_{self.rng.getrandbits(200):050x}",
                "summary": [{"type": "summary_text", "text": text}],
            }
            return thinking_block(text, dumps(item))
        sig = base64.b64encode(self.rng.randbytes(self.rng.randint(180, 420))).decode()
        return thinking_block(text, sig)

    def assistant(
        self,
        text: str | None = None,
        *,
        thinking: str | None = None,
        tools: list[Call] = (),
        stop: str | None = None,
        error: str | None = None,
        zero_usage: bool = False,
    ) -> str:
        """An assistant message. ``stop`` defaults to toolUse with tools, else stop."""
        if stop is None:
            stop = "toolUse" if tools else "stop"
        self.tick(0.005, 0.04)
        start = self.t
        content: list[dict[str, Any]] = []
        if thinking:
            content.append(self._thinking_block(thinking))
        if text:
            content.append(text_block(text))
        for call in tools:
            call.id = self._tool_call_id()
            self.calls[call.id] = call
            content.append(tool_call(call.id, call.name, call.arguments))
        out = sum(tokens(b.get("text") or b.get("thinking") or "") for b in content)
        out += sum(tokens(dumps(c.arguments)) + 12 for c in tools)
        gen = (self.rng.uniform(0.9, 2.8) + (2.5 if thinking else 0)) + out / self.rng.uniform(55, 85)
        if zero_usage:
            gen = self.rng.uniform(0.3, 1.5)
        msg = assistant_message(
            content,
            api=MODELS[(self.provider, self.model_id)]["api"],
            provider=self.provider,
            model=self.model_id,
            usage=self._usage(out, zero=zero_usage),
            stop=stop,
            timestamp=ms(start),
        )
        if self.provider == "anthropic" and not zero_usage:
            msg["responseId"] = "msg_01" + self.rand62(22)
        elif self.provider == "openai" and not zero_usage:
            msg["responseId"] = f"resp_{self.rng.getrandbits(200):050x}"
        if error is not None:
            msg["errorMessage"] = error
        if self.system is not None:  # pi 1.6: the error before the time, then the thinking level
            stamp = msg.pop("timestamp")
            msg |= {"timestamp": stamp, "thinkingLevel": self.thinking}
        self.t = start + timedelta(seconds=gen)
        return self._message(msg, 0 if zero_usage else out)

    def tool_result(self, call: Call, text: str, is_error: bool = False, details: dict[str, Any] | None = None) -> str:
        dur = call.duration if call.duration is not None else self.rng.uniform(0.004, 0.06)
        self.tick(dur * 0.9, dur * 1.1 + 0.002)
        msg = tool_result_message(
            call.id,
            call.name,
            [text_block(text)],
            ms(self.t),
            is_error=is_error,
            details=MISSING if details is None else details,
        )
        if self.system is not None:  # pi 1.6 times each tool
            stamp = msg.pop("timestamp")
            msg |= {"durationMs": max(1, round(dur * 1000)), "timestamp": stamp}
        self.tick(0.001, 0.003)
        return self._message(msg, tokens(text) + 20)

    def run(self, calls: list[Call]) -> list[str]:
        """Execute the calls of the last assistant message and append their results, in order."""
        out = []
        for c in calls:
            text, is_error, details = self._execute(c)
            if is_error and c.name != "bash" and not c.is_error:
                raise AssertionError(f"{c.name} {c.arguments.get('path')}: {text}")
            out.append(self.tool_result(c, text, is_error, details))
        return out

    def step(self, text: str | None = None, *, thinking: str | None = None, tools: list[Call]) -> list[str]:
        """One agent turn with tool calls: the assistant message, then every tool result."""
        self.assistant(text, thinking=thinking, tools=tools)
        return self.run(tools)

    def say(self, text: str, *, thinking: str | None = None) -> str:
        return self.assistant(text, thinking=thinking, stop="stop")

    def _execute(self, c: Call) -> tuple[str, bool, dict[str, Any] | None]:
        if c.result is not None:
            return c.result, c.is_error, None
        a = c.arguments
        if c.name == "read":
            content = self.files.get(a["path"])
            if content is None:
                return f"ENOENT: no such file or directory, access '{os.path.join(self.cwd, a['path'])}'", True, None
            lines = content.split("\n")
            start = (a.get("offset") or 1) - 1
            if "limit" in a and start + a["limit"] < len(lines):
                shown = "\n".join(lines[start : start + a["limit"]])
                rest = len(lines) - (start + a["limit"])
                return (
                    f"{shown}\n\n[{rest} more lines in file. Use offset={start + a['limit'] + 1} to continue.]",
                    False,
                    None,
                )
            return "\n".join(lines[start:]), False, None
        if c.name == "write":
            self.files[a["path"]] = a["content"]
            return f"Successfully wrote {len(a['content'])} bytes to {a['path']}", False, None
        if c.name == "edit":
            path = a["path"]
            old = self.files[path]
            new = old
            for i, ed in enumerate(a["edits"]):
                if new.count(ed["oldText"]) != 1:
                    if len(a["edits"]) == 1:
                        msg = (
                            f"Could not find the exact text in {path}. The old text must match exactly "
                            "including all whitespace and newlines."
                        )
                    else:
                        msg = (
                            f"Could not find edits[{i}] in {path}. The oldText must match exactly "
                            "including all whitespace and newlines."
                        )
                    return msg, True, None
                new = new.replace(ed["oldText"], ed["newText"])
            self.files[path] = new
            diff, first = pi_diff(old, new)
            return (
                f"Successfully replaced {len(a['edits'])} block(s) in {path}.",
                False,
                {"diff": diff, "firstChangedLine": first},
            )
        if c.name == "grep":
            base = a.get("path", ".").rstrip("/")
            flags = re.IGNORECASE if a.get("ignoreCase") else 0
            rx = re.compile(a["pattern"], flags)
            out = []
            for path in sorted(self.files):
                if base not in (".", "") and not (path == base or path.startswith(base + "/")):
                    continue
                if "glob" in a and not re.fullmatch(
                    a["glob"].replace(".", r"\.").replace("*", ".*"), os.path.basename(path)
                ):
                    continue
                shown = (
                    os.path.basename(path) if path == base else (path if base in (".", "") else path[len(base) + 1 :])
                )
                for n, text in enumerate(self.files[path].split("\n"), 1):
                    if rx.search(text):
                        out.append(f"{shown}:{n}: {text}")
            return ("\n".join(out) if out else "No matches found"), False, None
        if c.name == "bash":
            text = c.output if c.output else ""
            if c.exit_code != 0:
                return (f"{text}\n\n" if text else "") + f"Command exited with code {c.exit_code}", True, None
            return text or "(no output)", False, None
        raise ValueError(c.name)

    def bash_execution(
        self, command: str, output: str, exit_code: int = 0, exclude: bool = False, duration: float = 1.0
    ) -> str:
        """A command the user ran with ``!`` (``!!``: excluded from the model's context)."""
        self.tick(4, 20)
        self.tick(duration * 0.9, duration * 1.1)
        msg = bash_execution_message(command, output, exit_code, ms(self.t), exclude=exclude)
        self.tick(0.001, 0.003)
        return self._message(msg, 0 if exclude else tokens(output) + 30)

    # ---- tree entries -------------------------------------------------------------------------

    def label(self, target: str, text: str | None) -> str:
        """Set (or with None/"" clear) a label: the entry is parented at the current leaf."""
        assert target in self.by_id, target
        self.tick(3, 15)
        e = label(self.new_id(), self.leaf, iso(self.t), target, MISSING if text is None else text)
        if text:
            self.labels[target] = text
            self.label_times[target] = e["timestamp"]
        else:
            self.labels.pop(target, None)
            self.label_times.pop(target, None)
        return self._append(e)

    def session_info(self, name: str) -> str:
        self.tick(3, 12)
        e = session_info(self.new_id(), self.leaf, iso(self.t), name.strip())
        self.name = name.strip() or None
        return self._append(e)

    def goto(self, entry_id: str | None) -> None:
        """Navigate in /tree without a summary: memory only, nothing is written."""
        assert entry_id is None or entry_id in self.by_id
        self.tick(5, 20)
        self.leaf = entry_id
        self.cached = min(self.cached, self.ctx)

    @staticmethod
    def file_ops(entries: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
        """pi's computeFileLists: files only read, and files edited or written, sorted."""
        read_, modified = set(), set()
        for e in entries:
            m = e.get("message") or {}
            if e["type"] != "message" or m.get("role") != "assistant":
                continue
            for b in m["content"]:
                if b["type"] == "toolCall" and "path" in b["arguments"]:
                    if b["name"] == "read":
                        read_.add(b["arguments"]["path"])
                    elif b["name"] in ("edit", "write"):
                        modified.add(b["arguments"]["path"])
        return sorted(read_ - modified), sorted(modified)

    def branch_summary(self, from_id: str, body: str) -> str:
        """Navigate to ``from_id`` and summarise the branch left behind, as pi's /tree does."""
        assert from_id in self.by_id
        keep = {e["id"] for e in self.path(from_id)}
        read_files, modified_files = self.file_ops([e for e in self.path() if e["id"] not in keep])
        self.tick(8, 25)
        self.leaf = from_id
        self.cached = min(self.cached, self.ctx)
        summary = BRANCH_SUMMARY_PREAMBLE + body + file_ops_text(read_files, modified_files)
        details = {"readFiles": read_files, "modifiedFiles": modified_files}
        e = branch_summary(self.new_id(), self.leaf, iso(self.t), from_id, summary, details)
        return self._append(e, tokens(summary) + 30)

    def compaction(
        self,
        summary: str,
        first_kept: str | None,
        retained_tail: bool = False,
        with_usage: bool = False,
    ) -> str:
        """A compaction. With ``retained_tail`` copies of the kept messages are also stored in a
        ``retainedTail`` key, which no released pi reads (it is carried along); the kept range is
        ``firstKeptEntryId``'s."""
        tokens_before = self.ctx
        path = self.path()
        ids = [p["id"] for p in path]
        start = max((i for i, p in enumerate(path) if p["type"] == "compaction"), default=-1) + 1
        read_files, modified_files = self.file_ops(path[start : ids.index(first_kept)])
        self.tick(15, 40)
        i = self.new_id()
        usage = MISSING
        if with_usage:  # the summarisation call itself (newer format)
            usage = self._summary_usage(tokens_before + 640, tokens(summary))
        kept = 0
        tail = []
        if first_kept in ids:
            for p in path[ids.index(first_kept) :]:
                if p["type"] == "message":
                    tail.append(p["message"])
                    kept += tokens(str(p["message"].get("content", p["message"].get("output", ""))))
        e = compaction(
            i,
            self.leaf,
            iso(self.t),
            summary + file_ops_text(read_files, modified_files),
            MISSING if first_kept is None else first_kept,
            tokens_before,
            tail if retained_tail else MISSING,
            details={"readFiles": read_files, "modifiedFiles": modified_files},
            usage=usage,
        )
        if self.system is not None:  # pi 1.6: its own compactions, with the prompt checkpointed
            e["fromHook"] = False
            checkpoint = self.current_system(ms(self.t))
            if checkpoint is not None:
                e["systemMessage"] = checkpoint
        self.cached = 0
        self.entries.append(e)
        self.by_id[e["id"]] = e
        self.ctx_at[e["id"]] = SYSTEM_PROMPT_TOKENS + tokens(e["summary"]) + kept
        self.leaf = e["id"]
        return e["id"]

    def cache_warm(self, note: str | None = None) -> str:
        """pi 1.6's ``usage`` entry after a cache-refresh request (``appendUsage("cache_warm",
        ...)``): the whole context read from the cache, a few tokens of input."""
        self.tick(240, 290)  # a little before the cache would expire
        price = MODELS[(self.provider, self.model_id)]["cost"]
        usage: dict[str, Any] = {"input": 10, "output": 0, "cacheRead": self.ctx, "cacheWrite": 0}
        usage["totalTokens"] = usage["input"] + usage["cacheRead"]
        cost = {
            "input": (price[0] / 1000000) * usage["input"],
            "output": 0,
            "cacheRead": (price[2] / 1000000) * usage["cacheRead"],
            "cacheWrite": 0,
        }
        cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
        usage["cost"] = cost
        entry = {"type": "usage", "id": self.new_id(), "parentId": self.leaf, "timestamp": iso(self.t)}
        entry |= {"kind": "cache_warm", "provider": self.provider, "model": self.model_id, "usage": usage}
        if note:
            entry["note"] = note
        return self._append(entry)

    def context_edit(self, target: str, replacement: Any) -> str:
        """pi 1.6's ``appendContextEdit``: ``replacement`` None omits ``target`` from the model's
        context, else ``{"content": ...}`` stands in for its content."""
        self.tick(0.005, 0.05)
        old = self.by_id[target]["message"].get("content")
        saved = tokens(str(old)) - (0 if replacement is None else tokens(str(replacement["content"])))
        entry = {"type": "context_edit", "id": self.new_id(), "parentId": self.leaf, "timestamp": iso(self.t)}
        entry |= {"targetId": target, "replacement": replacement}
        return self._append(entry, -saved)

    def custom(self, custom_type: str, data: Any) -> str:
        self.tick(0.005, 0.05)
        return self._append(custom(self.new_id(), self.leaf, iso(self.t), custom_type, data))

    def custom_message(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        self.tick(0.005, 0.05)
        extra = MISSING if details is None else details
        e = custom_message(self.new_id(), self.leaf, iso(self.t), custom_type, content, display, extra)
        return self._append(e, tokens(str(content)))

    # ---- reading back -------------------------------------------------------------------------

    def path(self, leaf: str | None = ...) -> list[dict[str, Any]]:
        cur = self.leaf if leaf is ... else leaf
        out = []
        while cur is not None and cur in self.by_id:
            out.append(self.by_id[cur])
            cur = self.by_id[cur]["parentId"]
        return out[::-1]

    def file_name(self) -> str:
        return file_name(self.header["timestamp"], self.header["id"])

    def to_bytes(self) -> bytes:
        return b"".join(line(e) for e in [self.header, *self.entries])


def fork(src: Session, leaf: str, *, seed: int, start: str, parent_session: str) -> Session:
    """What pi's /fork writes: the path root..leaf without label entries, re-linked so that no
    entry points at a dropped label (pi's newer rule), then the labels of the kept entries as a
    chain at the end, with their original timestamps. Ids and timestamps are kept."""
    new = Session(
        seed=seed, cwd=src.cwd, start=start, files=dict(src.files), parent_session=parent_session, system=src.system
    )
    new.provider, new.model_id, new.thinking = src.provider, src.model_id, src.thinking
    prev: str | None = None
    for e in src.path(leaf):
        if e["type"] == "label":
            continue
        copy = dict(e)
        copy["parentId"] = prev
        new.entries.append(copy)
        new.by_id[copy["id"]] = copy
        new.ctx_at[copy["id"]] = src.ctx_at[e["id"]]
        new.leaf = prev = copy["id"]
        if e["type"] == "model_change":
            new.provider, new.model_id = e["provider"], e["modelId"]
        elif e["type"] == "thinking_level_change":
            new.thinking = e["thinkingLevel"]
        elif e["type"] == "message" and e["message"]["role"] == "assistant":
            new.provider, new.model_id = e["message"]["provider"], e["message"]["model"]
    for target, text in src.labels.items():
        if target not in new.by_id:
            continue
        e = label(new.new_id(), new.leaf, src.label_times[target], target, text)
        new._append(e)
        new.labels[target] = text
        new.label_times[target] = e["timestamp"]
    names = [e["name"] for e in new.entries if e["type"] == "session_info"]
    new.name = (names[-1] or None) if names else None
    new.cached = 0
    return new
