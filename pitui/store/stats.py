"""A session's summary for the picker's preview pane, from one pass over its file.

The preview is computed while the user moves through the list, so it reads the file once, in
blocks (memory stays at one block plus the longest line, whatever the file's size), decodes each
line with orjson and keeps only counters: no entry objects, no message bodies. Results are kept
in a small in-memory cache keyed by the file's identity, size and mtime, so moving back to a
session costs one ``stat``.

This is a second implementation of pi's load rules (reference §3; the first is
:mod:`pitui.store.reader`): the same lines are skipped, the same entries kept, the same leaf
chosen (the last entry), labels and name resolved the same way, v1 and v2 files read as pi
migrates them; ``modified`` is the listing's last-activity time (§6.1). It is kept in step with
pi by ``tests/test_preview.py``, which checks it against pi's own code (the oracle) and against
:class:`~pitui.store.reader.Session` on every fixture. Tokens and cost are pi 1.6's ``/session``
totals (:mod:`pitui.store.totals`): every usage in the file, all branches.
"""

from __future__ import annotations

import math
import operator
import os
import stat
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Collection, Iterable
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from pitui.store.content import extract_text_content
from pitui.store.js import (
    MISSING,
    Opaque,
    as_key,
    is_js_blank,
    js_date_parse,
    js_date_value,
    js_string,
    js_trim,
    js_truthy,
    strip_js_whitespace,
    time_clip,
)
from pitui.store.jsonl import BadLine, iter_lines, parse_fast, parse_line
from pitui.store.migrate import version_number
from pitui.store.model import LineProblem, NotASessionError
from pitui.store.totals import SessionStats, TotalsCounter

if TYPE_CHECKING:
    from pitui.store.reader import Session

__all__ = [
    "LabelInfo",
    "ModelUse",
    "PreviewCancelled",
    "PreviewError",
    "SessionFacts",
    "SessionPreview",
    "Tokens",
    "clear_preview_cache",
    "count_branches",
    "count_numbered_branches",
    "session_facts",
    "session_preview",
]

PROMPT_CHARS = 500  # a prompt is kept as one line of at most this many characters
MAX_PROBLEMS = 20  # skipped lines described one by one; the rest are only counted
CACHE_SIZE = 128


class PreviewCancelled(Exception):
    """The caller cancelled the preview (see :func:`session_preview`)."""


class PreviewError(Exception):
    """The file cannot be previewed: it vanished, cannot be read, or is not a pi session.
    ``str(error)`` is a sentence to show the user."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


class Tokens(Struct, frozen=True):
    """Token counts summed over the session's usages (:mod:`pitui.store.totals`)."""

    input: int | float = 0
    output: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0

    @property
    def total(self) -> int | float:
        """pi's session total: input, output, cache read and cache write added up."""
        return self.input + self.output + self.cache_read + self.cache_write


class ModelUse(Struct, frozen=True):
    """A model that answered in the session, and how many assistant messages it wrote."""

    provider: str
    model: str
    messages: int

    @property
    def name(self) -> str:
        if self.provider and self.model:
            return f"{self.provider}/{self.model}"
        return self.model or self.provider or "(unknown model)"


class LabelInfo(Struct, frozen=True):
    """A label in force: the entry it names, its text, and when it was set (ms, or None)."""

    target_id: str
    text: str
    time: float | None


class SessionPreview(Struct, frozen=True):
    """What the preview pane shows about one session file. Plain, immutable data.

    Branches: ``leaves`` counts the entries nothing hangs from (the ends of the conversation's
    paths: 1 for a linear session), ``branch_points`` the entries with two or more children.
    ``first_prompt`` is the first user message with text in the file (pi's ``firstMessage``);
    ``last_prompt`` the last one on the path to the leaf, the conversation pi would resume. Both
    are one line (whitespace runs made single spaces), cut to ``PROMPT_CHARS``, and untrusted:
    made safe only where they are shown.
    """

    path: str
    size: int
    mtime_ns: int
    session_id: str
    cwd: str
    name: str | None
    parent_session: str | None  # the header's parentSession: the file this one was forked from
    created: float | None  # ms since 1970; None when the header's timestamp is not a date
    modified: float  # ms since 1970: the last user/assistant activity, as pi's listing has it
    entries: int
    roles: dict[str, int]  # message entries by role, most frequent first ("unknown": no role)
    leaves: int
    branch_points: int
    leaf_id: str | None
    labels: tuple[LabelInfo, ...]  # newest first
    models: tuple[ModelUse, ...]  # most used first
    tokens: Tokens
    cost: float
    first_prompt: str | None
    last_prompt: str | None
    skipped_lines: int  # lines that are not entries: unreadable JSON, null, a second header
    problems: tuple[LineProblem, ...] = field(default=())  # the first MAX_PROBLEMS skipped lines and why
    totals: SessionStats = field(default=SessionStats())  # pi's /session totals; tokens and cost are its sums

    @property
    def messages(self) -> int:
        """Every ``message`` entry, all roles and branches (pi's ``messageCount``)."""
        return sum(self.roles.values())


# --------------------------------------------------------------------------------------------
# The cache


_cache: OrderedDict[str, tuple[tuple[int, int, int, int], SessionPreview]] = OrderedDict()
_cache_lock = threading.Lock()


def clear_preview_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _disk_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def session_preview(
    path: str, *, use_cache: bool = True, cancelled: Callable[[], bool] | None = None
) -> SessionPreview:
    """The preview of the session file at ``path``. Reads, never writes.

    Raises :class:`PreviewError` when the file vanished, cannot be read, or is not a pi session.
    ``cancelled`` is asked after each block read (a thread worker's ``is_cancelled``, say): when
    it says yes, :class:`PreviewCancelled` is raised, so a preview the user has moved away from
    stops early. Safe to call from several threads.
    """
    if use_cache:
        try:
            key = _disk_key(os.stat(path))
        except OSError as error:
            raise PreviewError(_os_reason(error), path) from None
        with _cache_lock:
            hit = _cache.get(path)
            if hit is not None and hit[0] == key:
                _cache.move_to_end(path)
                return hit[1]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO must not block
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise PreviewError("Not a session file: not a regular file.", path)
            preview = _Scan(path, fd).run(st, cancelled)
        finally:
            os.close(fd)
    except OSError as error:
        raise PreviewError(_os_reason(error), path) from None
    except NotASessionError:
        raise PreviewError("Not a pi session: its first readable line is not a session header.", path) from None
    if use_cache:
        with _cache_lock:
            _cache[path] = (_disk_key(st), preview)
            _cache.move_to_end(path)
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return preview


def count_branches(ids: Iterable[Any], parents: Iterable[Any], by_id: Collection[Any]) -> tuple[int, int]:
    """The leaves (entries nothing hangs from) and branch points (entries with two children or
    more) of pi's getTree, from each entry line's id and parent and the ids in the file.

    An entry hangs from its parent when the parent is in the file and is not itself; duplicate
    ids hang once per line, as pi places them."""
    children: Counter[Any] = Counter()
    for entry_id, parent in zip(ids, parents, strict=True):
        if parent is not None and parent != entry_id and parent in by_id:
            children[parent] += 1
    leaves = sum(1 for entry_id in by_id if entry_id not in children)
    branch_points = sum(1 for count in children.values() if count > 1)
    return leaves, branch_points


def count_numbered_branches(up: list[int | None]) -> tuple[int, int]:
    """:func:`count_branches` from each entry's parent's number (:mod:`pitui.store.slots`), where
    every id is taken once and none is null: an entry with its own id as parent is a root, and
    one whose parent is not in the file has no number. A million entries in 50 ms, not 1.4 s."""
    count = len(up)
    children = [0] * count
    for parent in compress(up, map(operator.ne, up, range(count))):
        if parent is not None:
            children[parent] += 1
    leaves = children.count(0)
    return leaves, count - leaves - children.count(1)


class SessionFacts(Struct, frozen=True):
    """What the session view says of a session it has read, beside what the entries tell: its
    branches (``leaves``, as the preview counts them), pi 1.6's ``/session`` token total and
    cost, and the file's size. The same figures as :func:`session_preview`'s, without reading
    the file again."""

    leaves: int
    tokens: int | float
    cost: float
    size: int


def session_facts(session: Session) -> SessionFacts:
    """The facts of a loaded session (its entries as read now; a body is read from the file
    only for a line the line index could not count). Raises :class:`OSError` (or
    :class:`~pitui.store.model.FileChangedError`) when the file cannot be read back."""
    entries = list(session.entries)  # as they are now: an append from another thread comes later
    slots = session.slot_map()  # (made by the view's tree already)
    if len(slots.up) == len(entries) == len(slots.index) and None not in slots.index:
        leaves, _ = count_numbered_branches(slots.up)
    else:
        leaves, _ = count_branches(map(_ENTRY_ID, entries), map(_PARENT_ID, entries), session.by_id)
    totals = session.stats()
    size = os.stat(session.path).st_size if session.path else session.read_upto
    return SessionFacts(leaves, totals.total_tokens, float(totals.cost), size)


_ENTRY_ID = attrgetter("id")
_PARENT_ID = attrgetter("parent_id")


def _os_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "The session file no longer exists."
    if isinstance(error, PermissionError):
        return "The session file cannot be read: permission denied."
    if isinstance(error, IsADirectoryError):
        return "Not a session file: a folder."
    return f"The session file cannot be read: {error.strerror or error}."


# --------------------------------------------------------------------------------------------
# Reading


def _one_line(text: str) -> str:
    """``text`` as one line: whitespace runs (newlines too) become one space; cut to PROMPT_CHARS."""
    line = " ".join(text[: PROMPT_CHARS * 4].split())
    return line if len(line) <= PROMPT_CHARS else line[: PROMPT_CHARS - 1] + "…"


def _text(value: Any) -> str:
    """A value shown as text: strings as they are, nothing for a missing value."""
    if type(value) is str:
        return value
    return "" if value is None or value is MISSING else js_string(value)


_CONTAINERS = (list, dict)


def _id_text(key: Any) -> str:
    """An id (a map key, see ``as_key``) as text."""
    return _text(key.value if isinstance(key, Opaque) else key)


class _Scan:
    """The counters of one pass over a file."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self.fd = fd
        self.header: dict[str, Any] | None = None
        # The first line had whitespace JSON.parse rejects (a BOM) before it: pi 1.6.0 cannot
        # parse it. A header there is kept unless the next value is a header (pi's, then).
        self.untrimmed = False
        self.tentative: int | None = None
        self.v1 = False  # pi migrates v1 in memory: new ids, one chain in file order
        self.v2 = False  # v2's hookMessage role is v3's custom
        self.entries = 0
        self.ids: list[Any] = []  # per entry line, its id and parent (as pi's Map keys)
        self.parents: list[Any] = []
        self.by_id: dict[Any, Any] = {}  # id -> parent, the last entry with an id winning (pi's byId)
        self.users: dict[Any, tuple[int, int]] = {}  # id -> (offset, length) of a user message line
        self.roles: Counter[str] = Counter()
        self.models: Counter[tuple[str, str]] = Counter()
        self.totals = TotalsCounter()
        self.labels: dict[Any, tuple[Any, Any, int]] = {}  # target -> (label, entry timestamp, order)
        self.name: str | None = None
        self.first_prompt: str | None = None
        self.last_activity: float | None = None
        self.skipped = 0
        self.problems: list[LineProblem] = []

    def run(self, st: os.stat_result, cancelled: Callable[[], bool] | None) -> SessionPreview:
        held: tuple[int, int, bytes] | None = None
        unterminated = False
        first = True

        def check() -> None:
            if cancelled is not None and cancelled():
                raise PreviewCancelled

        # Every line, blank ones too: the last one tells whether the file ends in a newline.
        for number, offset, line in iter_lines(self.fd, 0, st.st_size, blanks=True, before_block=check):
            unterminated = offset + len(line) >= st.st_size  # no newline after it
            if line[:1] != b"{" and is_js_blank(line):
                continue
            if first:
                # pi trims the whole content: a BOM or odd whitespace before the first line goes.
                cut = strip_js_whitespace(line, start=True)
                self.untrimmed = bool(line[:cut].rsplit(b"\n", 1)[-1].strip(b" \t\r"))
                line, offset, first = line[cut:], offset + cut, False
            if held is not None:
                self.feed(*held)
            held = (number, offset, line)
        if held is None:
            raise PreviewError("The file is empty: not a pi session yet.", self.path)
        number, offset, line = held
        line = line[: len(line) - strip_js_whitespace(line, start=False)]
        skipped = self.skipped
        self.feed(number, offset, line)
        if self.header is None:
            raise NotASessionError(self.path)
        if unterminated and self.skipped > skipped and self.problems and self.problems[-1].line == number:
            self.problems[-1] = LineProblem(self.path, number, "an incomplete last line (still being written?)")
        return self.result(st)

    def skip(self, number: int, reason: str) -> None:
        self.skipped += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(LineProblem(self.path, number, reason))

    def feed(self, number: int, offset: int, line: bytes) -> None:
        untrimmed, self.untrimmed = self.untrimmed, False
        try:
            value = parse_fast(line)
        except BadLine as error:
            if line.strip(b"\x00") == b"":
                self.skip(number, "a line of NUL bytes (a crash while writing?)")
            else:
                self.skip(number, str(error))
            return
        if type(value) is not dict and (value is None or value is False or value == 0 or value == ""):
            # pi 1.6.0 skips the falsy values (null, false, 0, ""), also before the header.
            self.skip(number, "a null line" if value is None else "a falsy line")
            return
        is_header = type(value) is dict and value.get("type") == "session" and type(value.get("id")) is str
        if self.tentative is not None:
            first_number, self.tentative = self.tentative, None
            if is_header:
                self.skip(first_number, "a first line pi 1.6.0 cannot parse (a byte order mark before it)")
                self.header = None
        if self.header is None:
            # pi checks only the first line that parses to a truthy value.
            if not is_header:
                if untrimmed:
                    self.skip(number, "a first line pi 1.6.0 cannot parse (a byte order mark before it)")
                    return
                raise NotASessionError(self.path)
            if untrimmed:
                self.tentative = number
            self.header = value
            version = version_number(value.get("version", MISSING))
            self.v1, self.v2 = version < 2, version < 3
            return
        if type(value) is not dict:
            value = {}  # pi keeps any other JSON value as an entry with no type, id or parent
        kind = value.get("type", MISSING)
        if kind == "session":
            self.skip(number, "a second session header")
            return
        position = self.entries
        self.entries += 1
        if self.v1:  # ids 1, 2, 3...: a chain in file order, as pi migrates it
            entry_id, parent = position + 1, (position or None)
        else:
            entry_id, parent = value.get("id", MISSING), value.get("parentId", MISSING)
            if type(entry_id) in _CONTAINERS or type(parent) in _CONTAINERS:
                entry_id, parent = as_key(entry_id), as_key(parent)
        self.ids.append(entry_id)
        self.parents.append(parent)
        self.by_id[entry_id] = parent
        self.totals.add(value)
        if kind == "message":
            self.message(value, entry_id, offset, len(line))
            return
        self.users.pop(entry_id, None)  # a later entry with the same id replaces the message
        if kind == "label":
            target = as_key(value.get("targetId", MISSING))
            label = value.get("label", MISSING)
            if js_truthy(label):
                self.labels[target] = (label, value.get("timestamp", MISSING), position)
            else:
                self.labels.pop(target, None)
        elif kind == "session_info":
            name = value.get("name")
            self.name = (js_trim(name) or None) if type(name) is str else None

    def message(self, entry: dict[str, Any], entry_id: Any, offset: int, length: int) -> None:
        message = entry.get("message")
        if type(message) is not dict:
            self.roles["unknown"] += 1
            self.users.pop(entry_id, None)
            return
        role = message.get("role", MISSING)
        if role == "hookMessage" and self.v2:
            role = "custom"
        self.roles[role if type(role) is str else "unknown"] += 1
        if role == "user":
            self.users[entry_id] = (offset, length)
        else:
            self.users.pop(entry_id, None)
        if role != "user" and role != "assistant":
            return
        if "content" in message:
            self.activity(entry, message)
        if role == "user":
            if self.first_prompt is None:
                text = extract_text_content(message.get("content"))
                if text:
                    self.first_prompt = _one_line(text)
            return
        self.models[(_text(message.get("provider", MISSING)), _text(message.get("model", MISSING)))] += 1

    def activity(self, entry: dict[str, Any], message: dict[str, Any]) -> None:
        """pi's ``getLastActivityTime``: the message's own time, else the entry's."""
        ts = message.get("timestamp")
        if type(ts) is not int and type(ts) is not float:
            ts = entry.get("timestamp")
            ts = js_date_parse(ts) if type(ts) is str else None
        if ts is not None and (self.last_activity is None or ts > self.last_activity):
            self.last_activity = ts if ts >= 0 else 0

    # -- after the pass -------------------------------------------------------------------

    def result(self, st: os.stat_result) -> SessionPreview:
        header = self.header
        assert header is not None
        by_id = self.by_id
        leaves, branch_points = count_branches(self.ids, self.parents, by_id)
        leaf = self.ids[-1] if self.ids else None
        labels = sorted(
            ((target, label, ts, order) for target, (label, ts, order) in self.labels.items() if target in by_id),
            key=lambda item: -item[3],
        )
        last = self.last_activity
        header_ts = header.get("timestamp", MISSING)
        if last is not None and last > 0:
            modified = time_clip(last)
            if modified is None:
                modified = math.nan
        elif type(header_ts) is str and (parsed := js_date_parse(header_ts)) is not None:
            modified = parsed
        else:
            modified = float(st.st_mtime_ns // 1_000_000)
        cwd = header.get("cwd")
        totals = self.totals.result()
        parent_session = header.get("parentSession")
        return SessionPreview(
            path=self.path,
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            session_id=header["id"],
            cwd=cwd if type(cwd) is str else "",
            name=self.name,
            parent_session=parent_session if type(parent_session) is str and parent_session else None,
            created=js_date_value(header_ts),
            modified=modified,
            entries=self.entries,
            roles=dict(self.roles.most_common()),
            leaves=leaves,
            branch_points=branch_points,
            leaf_id=None if self.v1 or leaf is None else _id_text(leaf) or None,
            labels=tuple(
                LabelInfo(_id_text(target), _text(label), js_date_value(ts)) for target, label, ts, _ in labels
            ),
            models=tuple(
                ModelUse(provider, model, count)
                for (provider, model), count in sorted(self.models.items(), key=lambda kv: (-kv[1], kv[0]))
            ),
            tokens=Tokens(totals.input, totals.output, totals.cache_read, totals.cache_write),
            cost=float(totals.cost),
            first_prompt=self.first_prompt,
            last_prompt=self.last_prompt(leaf),
            skipped_lines=self.skipped,
            problems=tuple(self.problems),
            totals=totals,
        )

    def last_prompt(self, leaf: Any) -> str | None:
        """The last user message with text on the path from the root to ``leaf``; its line is
        read again (only user messages' places were kept during the pass)."""
        by_id, users = self.by_id, self.users
        current = leaf if leaf in by_id and js_truthy(leaf) else None
        steps = 0
        while current is not None and steps <= len(by_id):  # more steps than entries: a cycle
            steps += 1
            place = users.get(current)
            if place is not None:
                text = self.text_at(*place)
                if text:
                    return _one_line(text)
            parent = by_id[current]
            current = parent if parent and parent in by_id else None
        return None

    def text_at(self, offset: int, length: int) -> str:
        try:
            value = parse_line(os.pread(self.fd, length, offset))
        except (BadLine, OSError):
            return ""
        message = value.get("message") if type(value) is dict else None
        return extract_text_content(message.get("content")) if type(message) is dict else ""
