"""A session's totals as pi's ``/session`` shows them (``AgentSession.getSessionStats``).

pi adds up, over **every** entry of the file (all branches, in file order):

* the ``usage`` of every assistant message,
* the ``usage`` of a toolResult message when it has a truthy one,
* the ``usage`` of every ``usage`` entry (cache warming, pi 1.6),
* the ``usage`` of a ``compaction`` or ``branch_summary`` entry when it has a truthy one,

with ``core/usage-totals.js`` ``addUsageToTotals``: ``input``, ``output``, ``cacheRead``,
``cacheWrite`` and ``cost.total``, each with JavaScript's ``+=``. It counts user, assistant and
toolResult messages, the assistants' ``toolCall`` blocks, and every ``message`` entry (system
messages included) as ``totalMessages``.

Two sums are kept, because pi's can stop being a number:

* the **exact** one (:meth:`SessionStats.pi_json`): JavaScript's ``+`` on whatever the file
  holds: a missing field makes ``NaN`` (printed ``null``), a string concatenates, and a
  ``usage`` (or ``cost``) that is missing or ``null`` makes pi throw a ``TypeError``, whose
  message is kept in :attr:`SessionStats.error` (pi's ``/session`` fails on such a file);
* the **shown** one (the dataclass's number fields): the same sums with every figure that is
  not a finite JSON number (or a boolean, or null, which ``+`` takes as numbers) counted as 0
  and the usages pi throws on left out, so a browser can always show totals. Wherever pi's
  sum is a finite number, the shown one is the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import reduce
from operator import add, attrgetter
from typing import Any

from msgspec import Struct

from pitui.store.js import MISSING, js_double, js_number, js_plus, js_round, js_string, js_truthy
from pitui.store.jsonl import prepare
from pitui.store.model import Entry, plain_number

__all__ = [
    "NO_USAGE",
    "TOOLS_AND_SUMMARIES",
    "RunningTotals",
    "SessionStats",
    "TotalsCounter",
    "carried_usage",
    "entries_stats",
    "entry_usage",
    "session_stats",
    "shown_figures",
    "stats_json",
    "usage_source",
]

_USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite")
_NUMBER_TYPES = frozenset({int, float})
_INT64 = 1 << 63


class _JSTypeError(Exception):
    """What V8 throws when a property of ``undefined`` or ``null`` is read."""


def _prop(value: Any, key: str) -> Any:
    """``value[key]`` in JavaScript, for a JSON value (MISSING is ``undefined``)."""
    if type(value) is dict:
        return value.get(key, MISSING)
    if value is MISSING or value is None:
        what = "undefined" if value is MISSING else "null"
        raise _JSTypeError(f"Cannot read properties of {what} (reading '{key}')")
    return MISSING  # numbers, strings, booleans and arrays have none of the keys pi reads


NO_USAGE: Any = object()  # carried_usage's answer for an entry that carries none
# pi's getUsageCostBreakdown key for the usage no model is named for
TOOLS_AND_SUMMARIES = "Tools/summaries"


def carried_usage(entry: dict[str, Any], role: Any = MISSING) -> Any:
    """The usage pi's ``getSessionStats`` adds for one entry (a parsed line that is an object),
    as the file holds it (any JSON value, MISSING for none: :meth:`TotalsCounter.add_usage`
    then fails as pi throws), or :data:`NO_USAGE` when pi adds nothing for it.

    The one rule of which entries carry usage: an assistant message's always, a toolResult's
    when truthy, a ``usage`` entry's always, a compaction's or branch summary's when truthy.
    ``role``: a message entry's ``message.role``, already read (reading it may throw).
    """
    kind = entry.get("type", MISSING)
    if kind == "usage":
        return entry.get("usage", MISSING)
    if kind == "branch_summary" or kind == "compaction":
        usage = entry.get("usage", MISSING)
        return usage if js_truthy(usage) else NO_USAGE
    if kind == "message" and (role == "assistant" or role == "toolResult"):
        usage = _prop(entry["message"], "usage")
        return usage if role == "assistant" or js_truthy(usage) else NO_USAGE
    return NO_USAGE


def _named(value: Any) -> str:
    """One part of a ``provider/model`` key, as a template literal writes it (``unknown`` for
    a part that is missing or null, where pi would write ``undefined`` or ``null``)."""
    if type(value) is str:
        return value
    return "unknown" if value is MISSING or value is None else js_string(value)


def usage_source(entry: dict[str, Any], role: Any = MISSING) -> str:
    """Whose usage an entry's is, as pi's ``getUsageCostBreakdown`` (``core/usage-totals``)
    keys it: an assistant message's ``provider/(responseModel ?? model)``, a ``usage``
    entry's ``provider/model``, anything else's ``Tools/summaries``."""
    if entry.get("type") == "usage":
        return f"{_named(entry.get('provider', MISSING))}/{_named(entry.get('model', MISSING))}"
    if role == "assistant":
        message = entry["message"]
        model = message.get("responseModel", MISSING)
        if model is MISSING or model is None:
            model = message.get("model", MISSING)
        return f"{_named(message.get('provider', MISSING))}/{_named(model)}"
    return TOOLS_AND_SUMMARIES


def shown_figures(usage: Any) -> tuple[int | float, ...] | None:
    """A usage's input, output, cacheRead, cacheWrite and cost.total as the shown sums add them,
    or None for a usage pi throws on (left out of the shown sums)."""
    try:
        figures = [_prop(usage, key) for key in _USAGE_FIELDS]
        figures.append(_prop(_prop(usage, "cost"), "total"))
    except _JSTypeError:
        return None
    return tuple(map(_shown, figures))


def entry_usage(entry: Any) -> tuple[str, tuple[int | float, ...]] | None:
    """The usage an entry (any parsed line) adds to the shown sums, and whose it is
    (:func:`usage_source`); None when it adds none."""
    if type(entry) is not dict:
        return None
    role: Any = MISSING
    if entry.get("type", MISSING) == "message":
        try:
            role = _prop(entry.get("message", MISSING), "role")
        except _JSTypeError:
            return None
    usage = carried_usage(entry, role)
    if usage is NO_USAGE:
        return None
    figures = shown_figures(usage)
    return None if figures is None else (usage_source(entry, role), figures)


def _shown(value: Any) -> int | float:
    """A usage figure as pitui adds it: as JavaScript's ``+`` does when that gives a number, else 0."""
    kind = type(value)
    if kind is int:
        number: int | float = value
        return number if math.isfinite(js_double(value)) else 0  # (beyond every double: Infinity)
    if kind is float and math.isfinite(value):
        number = value
        return number
    return 1 if value is True else 0  # JavaScript's + takes true as 1 (false and null as 0)


class SessionStats(Struct, frozen=True):
    """pi's ``/session`` totals of one file. The number fields are the shown sums (see the
    module's docstring); :meth:`pi_json` is pi's exact result."""

    user_messages: int = 0
    assistant_messages: int = 0
    tool_calls: int = 0
    tool_results: int = 0
    total_messages: int = 0
    input: int | float = 0
    output: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0
    cost: int | float = 0
    error: str | None = None  # the TypeError pi's getSessionStats throws on this file, if any
    exact: tuple[Any, ...] = (0, 0, 0, 0, 0)  # pi's input, output, cacheRead, cacheWrite, cost

    @property
    def total_tokens(self) -> int | float:
        """pi's ``tokens.total``: input, output, cache read and cache write added up."""
        return self.input + self.output + self.cache_read + self.cache_write

    def pi_json(self) -> dict[str, Any]:
        """The totals in the pi oracle's ``stats`` schema (``{"error": message}`` when pi throws),
        ready for :func:`pitui.store.jsonl.prepare`: numbers as JavaScript holds them, cost
        rounded to 9 decimals as the oracle rounds it."""
        if self.error is not None:
            return {"error": self.error}
        tokens_in, tokens_out, read, write, cost = self.exact
        total = js_plus(js_plus(js_plus(tokens_in, tokens_out), read), write)
        return {
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": {
                "input": tokens_in,
                "output": tokens_out,
                "cacheRead": read,
                "cacheWrite": write,
                "total": total,
            },
            "cost": js_round(js_number(cost) * 1e9) / 1e9,
        }


def _numbers(values: list[Any]) -> bool:
    return set(map(type, values)) <= _NUMBER_TYPES


class TotalsCounter:
    """pi's ``getSessionStats`` loop, fed one entry at a time in file order."""

    __slots__ = ("counts", "error", "exact", "numbers", "shown")

    def __init__(self) -> None:
        self.counts = [0, 0, 0, 0, 0]  # user, assistant, toolCalls, toolResult, message entries
        self.exact: list[Any] = [0, 0, 0, 0, 0]
        self.shown: list[int | float] = [0, 0, 0, 0, 0]
        self.error: str | None = None
        self.numbers = True  # every exact sum is an int or a float (no string concatenated in)

    def copy(self) -> TotalsCounter:
        other = TotalsCounter()
        other.counts, other.exact, other.shown = list(self.counts), list(self.exact), list(self.shown)
        other.error, other.numbers = self.error, self.numbers
        return other

    def state(self) -> tuple[Any, ...] | None:
        """What :meth:`from_state` makes this counter again from: plain values a session's index
        stores (None where a sum is an integer of more than 64 bits, which it cannot)."""
        if any(type(v) is int and not -_INT64 <= v < _INT64 for v in (*self.counts, *self.exact, *self.shown)):
            return None
        return (list(self.counts), list(self.exact), list(self.shown), self.error, self.numbers)

    @classmethod
    def from_state(cls, state: tuple[Any, ...]) -> TotalsCounter:
        counter = cls()
        counts, exact, shown, counter.error, counter.numbers = state
        counter.counts, counter.exact, counter.shown = list(counts), list(exact), list(shown)
        return counter

    def add_entries(self, entries: list[Entry]) -> None:
        """A loaded session's entries, in file order (see :func:`session_stats`), a slice at
        a time: the columns of a slice are made at once, and at 1,000,000 entries those of
        all of them at once were 100 MB more at the command's peak."""
        for start in range(0, len(entries), _SLICE):
            self._add_slice(entries[start : start + _SLICE])

    def _add_slice(self, entries: list[Entry]) -> None:
        kinds, roles, figures = list(map(_TYPE, entries)), list(map(_ROLE, entries)), list(map(_FIGURES, entries))
        # The entries read by every rule (:meth:`TotalsCounter.add`): a usage, compaction or branch
        # summary whose usage is odd, and a message the index kept no figures of (its usage or
        # content odd, or its role). Between two of them every entry is counted from its figures.
        read = []
        for k in [k for k, known in enumerate(figures) if known is None]:  # (every entry but a message)
            kind, role = kinds[k], roles[k]
            if kind == "message":
                if type(role) is not str or role in _BODY_ROLES:
                    read.append(k)
            elif type(kind) is str and kind in _USAGE_TYPES:
                carried = _carried_figures(entries[k])
                if carried is None:
                    read.append(k)
                else:
                    figures[k] = carried
        start = 0
        for stop in read:
            if start < stop:
                self.add_known_run(kinds[start:stop], roles[start:stop], figures[start:stop])
            self.add(entries[stop].data)
            start = stop + 1
        if start < len(entries):
            self.add_known_run(kinds[start:], roles[start:], figures[start:])

    def _fail(self, error: _JSTypeError) -> None:
        if self.error is None:
            self.error = str(error)

    def add_usage(self, usage: Any) -> None:
        """``addUsageToTotals(totals, usage)``."""
        try:
            figures = [_prop(usage, key) for key in _USAGE_FIELDS]
            figures.append(_prop(_prop(usage, "cost"), "total"))
        except _JSTypeError as error:
            self._fail(error)
            return
        self._add_figures(figures)

    def _add_figures(self, figures: Sequence[Any]) -> None:
        exact, shown = self.exact, self.shown
        for index, value in enumerate(figures):
            exact[index] = js_plus(exact[index], value)
            shown[index] += _shown(value)
        self.numbers = _numbers(exact)

    def add_known(self, role: str, figures: tuple[Any, ...]) -> None:
        """An assistant or tool result message from what the line index kept of it
        (``Entry.usage_figures``): what :meth:`add` does with its body."""
        counts = self.counts
        counts[4] += 1
        if role == "assistant":
            counts[1] += 1
            counts[2] += figures[5]
        else:
            counts[3] += 1
            if not figures:
                return
        exact, shown = self.exact, self.shown
        tokens_in, tokens_out, read, write, cost = figures[0], figures[1], figures[2], figures[3], figures[4]
        shown[0] += tokens_in
        shown[1] += tokens_out
        shown[2] += read
        shown[3] += write
        shown[4] += cost
        if self.numbers:
            # Plain (finite) numbers: JavaScript's + is a float addition, as js_plus does it.
            exact[0] = float(exact[0]) + tokens_in
            exact[1] = float(exact[1]) + tokens_out
            exact[2] = float(exact[2]) + read
            exact[3] = float(exact[3]) + write
            exact[4] = float(exact[4]) + cost
            return
        for index in range(5):
            value, total = figures[index], exact[index]
            kind = type(total)
            exact[index] = float(total) + value if kind is float or kind is int else js_plus(total, value)
        self.numbers = _numbers(exact)

    def add_known_run(self, kinds: list[Any], roles: list[Any], figures: list[tuple[Any, ...] | None]) -> None:
        """Consecutive entries of which none is read whole (see :func:`session_stats`): their
        ``type``, ``message.role`` and figures (``Entry.usage_figures``, or a usage entry's).
        What :meth:`add_message_role`, :meth:`add_known` and :meth:`add_usage` do entry by
        entry, a column at a time: in a session of 100,000 entries a call per entry took
        0.15 s. The figures are added in file order, as JavaScript's ``+=`` adds them
        (``functools.reduce``, not ``sum``, which may compensate)."""
        if not self.numbers:  # a sum is no longer a number: JavaScript's + figure by figure
            for kind, role, known in zip(kinds, roles, figures, strict=True):
                if kind == "message":
                    if known is None:
                        self.add_message_role(role)
                    else:
                        self.add_known(role, known)
                elif known:  # a usage, compaction or branch summary's
                    self._add_figures(known[:5])
            return
        counts = self.counts
        counts[0] += roles.count("user")
        counts[1] += roles.count("assistant")
        counts[3] += roles.count("toolResult")
        counts[4] += kinds.count("message")
        usages = list(filter(None, figures))  # (a tool result with no usage has no figures)
        if not usages:
            return
        exact, shown = self.exact, self.shown
        columns = list(zip(*usages, strict=True))
        for index in range(5):
            shown[index] = reduce(add, columns[index], shown[index])
            exact[index] = reduce(add, columns[index], float(exact[index]))
        counts[2] += sum(columns[5])  # the assistants' tool calls (0 for a tool result)

    def add_message_role(self, role: Any) -> None:
        """A message entry whose message is an object with ``role`` and needs no body: a
        user, system or custom message (assistant and toolResult ones go to :meth:`add`)."""
        self.counts[4] += 1
        if role == "user":
            self.counts[0] += 1

    def add(self, entry: Any) -> None:
        """One entry of the file, as parsed (any JSON value)."""
        if type(entry) is not dict:
            return  # pi keeps such lines as entries; it reads no property of them that exists
        kind = entry.get("type", MISSING)
        if kind != "message":
            usage = carried_usage(entry)
            if usage is not NO_USAGE:
                self.add_usage(usage)
            return
        counts = self.counts
        counts[4] += 1
        try:
            role = _prop(entry.get("message", MISSING), "role")
        except _JSTypeError as error:
            self._fail(error)
            return
        message = entry["message"]
        if role == "user":
            counts[0] += 1
        elif role == "toolResult":
            counts[3] += 1
        elif role == "assistant":
            counts[1] += 1
            content = _prop(message, "content")
            if type(content) is list:
                try:
                    counts[2] += sum(1 for block in content if _prop(block, "type") == "toolCall")
                except _JSTypeError as error:
                    self._fail(error)  # pi throws before it counts any of this message's calls
                    counts[2] += sum(1 for b in content if type(b) is dict and b.get("type") == "toolCall")
        usage = carried_usage(entry, role)
        if usage is not NO_USAGE:
            self.add_usage(usage)

    def result(self) -> SessionStats:
        users, assistants, calls, results, messages = self.counts
        tokens_in, tokens_out, read, write, cost = self.shown
        return SessionStats(
            users,
            assistants,
            calls,
            results,
            messages,
            tokens_in,
            tokens_out,
            read,
            write,
            cost,
            error=self.error,
            exact=tuple(self.exact),
        )


def entries_stats(entries: Iterable[Any]) -> SessionStats:
    """The totals of parsed entries (JSON values, in file order, header left out)."""
    counter = TotalsCounter()
    for entry in entries:
        counter.add(entry)
    return counter.result()


# Entries whose columns are made at once when totals are counted (a 64K slice: 0.5 MB a column).
_SLICE = 1 << 16
_BODY_ROLES = frozenset({"assistant", "toolResult"})
_USAGE_TYPES = frozenset({"usage", "compaction", "branch_summary"})


def session_stats(entries: Iterable[Entry]) -> SessionStats:
    """The totals of a loaded session's entries (``Session.entries``, every line in file order).
    Only the lines that can carry a usage or tool calls are decoded, and of those only the
    ones whose figures the line index did not keep: the rest is counted a run of entries at a
    time (:meth:`TotalsCounter.add_known_run`)."""
    counter = TotalsCounter()
    counter.add_entries(entries if type(entries) is list else list(entries))
    return counter.result()


class RunningTotals:
    """The totals of a session's entries as they grow: counted again, only what was appended
    since the last count is added (pi appends a few lines a turn to a file of 100,000 entries,
    whose whole count is 0.1 s). Safe from several threads: the state is one tuple, replaced
    whole, and a counter is never changed once kept."""

    __slots__ = ("_state",)

    def __init__(self, entries: list[Entry] | None = None, counter: TotalsCounter | None = None) -> None:
        """``counter``: the count of ``entries`` as they are now (a session's index holds it)."""
        entries = entries if entries is not None else []
        self._state = (entries, len(entries), entries[-1] if entries else None, counter or TotalsCounter())

    def of(self, entries: list[Entry]) -> SessionStats:
        """The totals of ``entries`` (a session's list): the last count and what was appended."""
        end = len(entries)  # (another thread may append meanwhile: that is counted next time)
        last = self._last(entries)
        count, counter = (last[0], last[1].copy()) if last else (0, TotalsCounter())
        counter.add_entries(entries[count:end])
        self._state = (entries, end, entries[end - 1] if end else None, counter)
        return counter.result()

    def counter_for(self, entries: list[Entry], count: int) -> TotalsCounter | None:
        """The counter of the first ``count`` of ``entries``, if that is the last count."""
        last = self._last(entries)
        return last[1] if last and last[0] == count else None

    def _last(self, entries: list[Entry]) -> tuple[int, TotalsCounter] | None:
        """The last count (how many entries, its counter), if it was of the first entries of
        ``entries`` as they are now; None for other entries, or ones not only appended to."""
        counted, count, last, counter = self._state
        if counted is entries and count <= len(entries) and (count == 0 or entries[count - 1] is last):
            return count, counter
        return None


_TYPE, _ROLE, _FIGURES = attrgetter("type"), attrgetter("role"), attrgetter("usage_figures")


def _carried_figures(entry: Entry) -> tuple[Any, ...] | None:
    """A usage, compaction or branch summary entry's figures, in the shape of a message's
    ``usage_figures`` (no tool calls), ``()`` for one that carries no usage, or None for a
    usage that is not plain numbers (read by every rule)."""
    data = entry.data
    if type(data) is not dict:
        return None
    usage = carried_usage(data)
    if usage is NO_USAGE:
        return ()
    if type(usage) is not dict:
        return None
    cost = usage.get("cost")
    figures = (*map(usage.get, _USAGE_FIELDS), cost.get("total") if type(cost) is dict else None)
    return (*figures, 0) if all(map(plain_number, figures)) else None


def stats_json(stats: SessionStats) -> dict[str, Any]:
    """The oracle's ``stats`` of a session's totals, prepared for ``dumps``."""
    result: dict[str, Any] = prepare(stats.pi_json())
    return result
