"""A pi session file read: its entries, tree, active path, labels, name and context.

A :class:`Session` is read once from a file (or built in memory) and follows pi's rules for
loading (reference §3), the tree and the context (§4). Message bodies are not kept: each entry
remembers where its line is, and the body is decoded again only when asked for.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import os
import stat
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pitui.store import fastline, tuning
from pitui.store.blocks import load_in_blocks
from pitui.store.context import ProjectedEntry, project, projected_messages, select_entries
from pitui.store.js import MISSING, as_key, js_trim, js_truthy
from pitui.store.jsonl import BadLine, content_range, iter_lines, parse_fast
from pitui.store.migrate import CURRENT_VERSION, migrate, version_number
from pitui.store.model import (
    DiskState,
    Entry,
    FileChangedError,
    LineProblem,
    LineSource,
    NotASessionError,
    SessionContext,
    Tree,
    _sort_children,
)
from pitui.store.slots import SlotMap
from pitui.store.totals import RunningTotals, SessionStats

if TYPE_CHECKING:
    from pitui.store.session_index import IndexCache


class Session:
    """A session file's header and entries, with pi's rules for tree, path, labels and context."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.header: dict[str, Any] | None = None
        self.entries: list[Entry] = []
        self.by_id: dict[Any, Entry] = {}
        self.labels: dict[Any, Any] = {}
        self.label_times: dict[Any, Any] = {}
        self.leaf_id: Any = None
        self.problems: list[LineProblem] = []
        self.original_version: Any = CURRENT_VERSION
        self.disk: DiskState | None = None  # the file as it was read, for writes to check
        self.source: LineSource | None = None
        self.header_offset = 0
        self.unparsed: list[tuple[int, int]] = []  # (offset, length) of lines that are not entries
        self.read_upto = 0  # the end of the last whole line read: where the file is read on from
        self.next_line = 1
        self.torn_line = 0  # the number of an incomplete last line (0: none)
        self._tree: Tree | None = None
        self._path_cache: tuple[Entry, list[Entry]] | None = None
        # context_entries of the last few leaves asked for (the pane asks for a path's leaf,
        # its compaction and the compaction's parent, and the footer for the leaf again)
        self._selected_cache: list[tuple[Entry, list[Entry]]] = []
        self._slots: SlotMap | None = None  # the entries as integers, once the tree asked for them
        self.totals = RunningTotals()  # the last count of pi's /session totals (see stats)

    # ------------------------------------------------------------------ loading

    @classmethod
    def load(
        cls,
        path: str,
        *,
        keep_bodies: bool = False,
        index: IndexCache | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Session:
        """Read a session file, tolerating bad lines. Never writes (to the file).

        With ``index`` (a :class:`~pitui.store.session_index.IndexCache`), a session read
        before is restored from its index in that cache, reading only the lines appended since,
        when the index still holds for the file; else the file is read whole and its index
        written (now, or when the cache is told to). The session is the same either way.

        ``cancelled``: asked between the blocks of a big file (see :mod:`pitui.store.blocks`);
        True gives the read up (:class:`ReadCancelled`), for a program that no longer wants it.

        Raises :class:`NotASessionError` for a non-empty file that is not a pi session (or not
        a regular file), and ``OSError`` when the file cannot be read.
        """
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
        # The descriptor stays open for the bodies read later (see LineSource).
        source: LineSource | None = None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise NotASessionError(f"{path}: not a regular file")
            if index is not None and not keep_bodies:
                source = LineSource(path, fd)
                reopened = index.reopen(cls, path, source, st)
                if reopened is not None:
                    return reopened
            if source is None and not keep_bodies:
                source = LineSource(path, fd)
            # A big file is read in blocks, not held whole (pitui.store.blocks).
            read = None
            if source is not None and tuning.read_in_blocks(st.st_size):
                read = load_in_blocks(cls, fd, path, source, st.st_size, cancelled)
            if read is not None:
                session, size = read, st.st_size
            else:
                with open(os.dup(fd), "rb", buffering=0) as raw:
                    data = raw.readall()  # one buffer of the file's size, not chunks joined into a copy
                session, size = cls.from_bytes(data, path=path, keep_bodies=keep_bodies, source=source), len(data)
                del data
        except BaseException:
            if source is not None:
                source.close()
            else:
                os.close(fd)
            raise
        if source is None:
            os.close(fd)
        session.disk = DiskState(st.st_dev, st.st_ino, size, st.st_mtime_ns)  # size as read
        if index is not None and not keep_bodies:
            index.remember(session)
        return session

    @classmethod
    def from_bytes(
        cls, data: bytes, *, path: str | None = None, keep_bodies: bool = False, source: LineSource | None = None
    ) -> Session:
        """Read a session from its bytes; bodies are read back later through ``source`` (or
        kept, when there is none). The garbage collector is left as it is: a program reading
        big files pauses it around the read (:func:`pitui.store.tuning.gc_paused`)."""
        return cls._from_bytes(data, path, keep_bodies, source, None, 0, 1)

    @classmethod
    def _from_bytes(
        cls,
        data: bytes,
        path: str | None,
        keep_bodies: bool,
        source: LineSource | None,
        header: dict[str, Any] | None,
        base_offset: int,
        first_number: int,
        *,
        index: bool = True,
        end: int | None = None,
        file_end: bool = True,
    ) -> Session:
        """The one reading loop. With ``header`` given, ``data`` continues a v3 file from
        ``base_offset`` (line ``first_number``): the lines pi appended since it was read (or the
        next block of a file read in blocks, its first ``end`` bytes, not copied). ``index``: build
        the index (a whole file). ``file_end``: the data ends where the file does (its whitespace
        trimmed there, as pi's ``trim()`` trims it), not where a block of it does."""
        session = cls(path)
        where = path or "<memory>"
        if keep_bodies:
            source = None
        size = len(data) if end is None else end
        torn_tail = size > 0 and not data.endswith(b"\n", 0, size)
        continuing = header is not None
        keep = not continuing or source is None
        needs_migration = False
        entries: list[Entry] = []
        parsed_order: list[dict[str, Any]] = []  # every parsed value, for a v1 file's migration
        unparsed = session.unparsed
        last_number = 0

        # A header read from a first line pi 1.6.0 cannot parse (a BOM before it): kept, unless
        # the next value is a header, which is then the one pi reads.
        tentative: tuple[int, int, int] | None = None

        def consume(lines: Iterable[tuple[int, int, bytes]], until_fast: bool = False) -> int | None:
            """Read ``lines`` one at a time; ``until_fast``: stop after the header when the
            rest can be read many lines at a time (the offset in ``data`` after it)."""
            nonlocal header, keep, needs_migration, last_number, tentative
            problems, append = session.problems, entries.append
            fast_entry = fastline.message_entry
            for number, offset, line in lines:
                last_number = number
                # A message line whose body is not kept: its tree fields alone, when the fast
                # path can decide them exactly (it refuses anything else, read below).
                if not keep and tentative is None and line[:1] == b"{":
                    entry = fast_entry(line, number, offset, source, entries[-1].id if entries else None)
                    if entry is not None:
                        append(entry)
                        continue
                try:
                    value = parse_fast(line)
                except BadLine as error:
                    problems.append(LineProblem(where, number, _describe_bad_line(line, error)))
                    unparsed.append((offset, len(line)))
                    continue
                if not js_truthy(value) and type(value) is not dict:
                    # pi 1.6.0 skips the falsy values (null, false, 0, ""), also before the header.
                    problems.append(LineProblem(where, number, f"skipped: a {_falsy_name(value)} line"))
                    unparsed.append((offset, len(line)))
                    continue
                if tentative is not None:
                    first_number, first_offset, first_length = tentative
                    tentative = None
                    if _is_header(value):
                        problems.insert(0, LineProblem(where, first_number, _UNTRIMMED))
                        unparsed.insert(0, (first_offset, first_length))
                        parsed_order.clear()
                        header = None
                if header is None:
                    # pi checks only the first line that parses to a truthy value.
                    if (
                        not isinstance(value, dict)
                        or value.get("type") != "session"
                        or not isinstance(value.get("id"), str)
                    ):
                        if _unparsable_for_pi(data, offset - base_offset):
                            # pi 1.6.0 does not trim the file: it skips this line and looks on.
                            problems.append(LineProblem(where, number, _UNTRIMMED))
                            unparsed.append((offset, len(line)))
                            continue
                        raise NotASessionError(f"{where}: the first line is not a pi session header")
                    header = value
                    if _unparsable_for_pi(data, offset - base_offset):
                        tentative = (number, offset, len(line))
                    session.header_offset = offset
                    session.original_version = value.get("version", MISSING)
                    needs_migration = version_number(session.original_version) < CURRENT_VERSION
                    keep = keep_bodies or needs_migration or source is None
                    parsed_order.append(value)
                    if until_fast and not keep and tentative is None:
                        return offset - base_offset + len(line) + 1
                    continue
                if not isinstance(value, dict):
                    # pi keeps any other JSON value as an entry with no type, id or parent.
                    problems.append(LineProblem(where, number, "not a JSON object: kept as an entry without id"))
                    value = {}
                kind = value.get("type")
                if needs_migration:
                    parsed_order.append(value)
                if kind == "session":
                    problems.append(LineProblem(where, number, "skipped: a second session header"))
                    unparsed.append((offset, len(line)))
                    continue
                append(Entry.from_data(value, number, offset, len(line), source, keep or kind != "message"))
            return None

        def consume_runs(start: int, number: int, stop: int) -> None:
            """Read the whole lines of ``data[start:stop]`` (from line ``number``), after the
            header, many at a time (:func:`~pitui.store.fastline.read_lines`), or a line at a
            time where a run is not one JSON object per line."""
            nonlocal last_number
            problems = session.problems
            while start < stop:
                end = fastline.run_end(data, start, stop)
                kept = len(entries), len(problems), len(unparsed)
                after = fastline.read_lines(data, start, end, number, base_offset, source, entries, exact_line)
                if after is None:
                    del entries[kept[0] :], problems[kept[1] :], unparsed[kept[2] :]
                    consume(iter_lines(data, start, end, number, base_offset=base_offset))
                    after = number + data.count(b"\n", start, end)
                else:
                    last_number = after - 1
                number, start = after, end

        def exact_line(number: int, offset: int, line: bytes) -> None:
            consume(((number, offset, line),))

        head, tail = content_range(data, header is None, size, trim_end=file_end)
        number = first_number + data.count(b"\n", 0, head)
        if header is None or keep:
            resume = consume(iter_lines(data, head, tail, number, base_offset=base_offset), until_fast=True)
            if resume is not None:
                consume_runs(resume, first_number + data.count(b"\n", 0, resume), tail)
        else:
            consume_runs(head, number, tail)
        torn = torn_tail and bool(session.problems) and session.problems[-1].line == last_number
        if torn:
            last = session.problems[-1]
            session.problems[-1] = LineProblem(
                last.path, last.line, "skipped: an incomplete last line (still being written?)"
            )
        if header is None:
            if session.problems:
                raise NotASessionError(f"{where}: no readable line: not a pi session")
            return session  # empty: a session with no header yet
        session.header = header
        session.source = source
        # Where reading goes on when the file grows: a torn last line is read again once whole.
        complete = data.rfind(b"\n", 0, size) + 1 if torn else size
        session.read_upto = base_offset + complete
        # Each line up to the last one read ends in a newline: only what follows it is counted.
        counted, tail = 0, 0
        if entries and (last_entry := entries[-1]).line == last_number:
            counted, tail = last_number - first_number, last_entry.offset + last_entry.length - base_offset
        session.next_line = first_number + counted + data.count(b"\n", tail, complete)
        session.torn_line = last_number if torn else 0
        if needs_migration:
            migrate(header, entries, parsed_order, session.original_version)
        session.entries = entries
        if not continuing and index:
            session._build_index()
        return session

    def _build_index(self) -> None:
        self.labels = {}
        self.label_times = {}
        entries = self.entries
        # Unique ids (every file pi writes): the map made in one go, the labels from the label
        # entries alone. _index_entry's effect, entry by entry, is the same.
        by_id = dict(zip(map(_ID, entries), entries, strict=True))
        if len(by_id) == len(entries):
            self.by_id = by_id
            for entry in [e for e in entries if e.type == "label"]:
                self._index_entry(entry)
            self.leaf_id = entries[-1].id if entries else None
            self._tree = None
            self._forget_paths()
            return
        self.by_id = {}
        self.leaf_id = None
        by_id = self.by_id
        for entry in entries:
            if entry.id in by_id and self.path:
                self.problems.append(
                    LineProblem(self.path, entry.line, f"duplicate id {entry.id!r}: the later entry wins")
                )
            self._index_entry(entry)
        self._tree = None
        self._forget_paths()

    def _index_entry(self, entry: Entry) -> None:
        self.by_id[entry.id] = entry
        self.leaf_id = entry.id
        if entry.type == "label":
            target = as_key(entry.get("targetId"))
            label = entry.get("label")
            if js_truthy(label):
                self.labels[target] = label
                self.label_times[target] = entry.timestamp
            else:
                self.labels.pop(target, None)
                self.label_times.pop(target, None)

    def refresh(self) -> int:
        """Read what was appended to the file since it was read (pi writing to it now), and
        return how many entries came in. A torn last line is left for the next call.

        Raises :class:`FileChangedError` when the file was replaced, shrank or needs migrating:
        then it must be read again whole.
        """
        if self.path is None or self.disk is None or self.source is None or self.header is None:
            raise FileChangedError(f"{self.path}: not read from a file that can be followed")
        if self.migrated:
            raise FileChangedError(f"{self.path}: an old-format file changed: read it again")
        st = os.stat(self.path)
        if (st.st_dev, st.st_ino) != (self.disk.dev, self.disk.ino) or st.st_size < self.disk.size:
            raise FileChangedError(f"{self.path} was replaced or cut short: read it again")
        if st.st_size == self.disk.size:
            return 0
        data = self.source.raw(self.read_upto, st.st_size - self.read_upto)
        more = Session._from_bytes(data, self.path, False, self.source, self.header, self.read_upto, self.next_line)
        if self.torn_line:  # the torn line, whole or still torn, is read and reported afresh
            self.problems = [p for p in self.problems if p.line != self.torn_line]
            self.unparsed = [u for u in self.unparsed if u[0] < self.read_upto]
        self.problems += more.problems
        self.unparsed += more.unparsed
        for entry in more.entries:
            if entry.id in self.by_id:
                self.problems.append(
                    LineProblem(self.path, entry.line, f"duplicate id {entry.id!r}: the later entry wins")
                )
            self.add(entry)
        self.read_upto, self.next_line, self.torn_line = more.read_upto, more.next_line, more.torn_line
        self.disk = DiskState.of(st)
        return len(more.entries)

    def note_own_append(self, entry: Entry, disk: DiskState) -> None:
        """Account for a line this process appended (``entry``, about to be added), so that
        following the file does not read it back as pi's."""
        if self.torn_line:  # the append ended the torn line first: it is a bad line now
            self.next_line = self.torn_line + 1
            self.torn_line = 0
        entry.line = self.next_line
        self.next_line += 1
        self.read_upto = disk.size
        self.disk = disk

    def add(self, entry: Entry) -> None:
        """Add an entry at the end (after it was appended to the file, or in memory)."""
        self.entries.append(entry)
        self._index_entry(entry)
        self._tree = None
        self._forget_paths()

    # ------------------------------------------------------------------ queries

    @property
    def session_id(self) -> str | None:
        return self.header.get("id") if self.header else None

    @property
    def cwd(self) -> str:
        cwd = self.header.get("cwd") if self.header else None
        return cwd if isinstance(cwd, str) else ""

    @property
    def name(self) -> str | None:
        """The latest ``session_info`` entry's name; an empty name clears it (newer pi)."""
        for entry in reversed(self.entries):
            if entry.type == "session_info":
                name = entry.get("name")
                return (js_trim(name) or None) if isinstance(name, str) else None
        return None

    @property
    def migrated(self) -> bool:
        return version_number(self.original_version) < CURRENT_VERSION

    def entry(self, entry_id: Any) -> Entry | None:
        return self.by_id.get(entry_id)

    def leaf(self) -> Entry | None:
        return self.by_id.get(self.leaf_id) if js_truthy(self.leaf_id) else None

    def children(self, parent_id: Any) -> list[Entry]:
        """``getChildren``: entries whose parentId is ``parent_id``, in index order (unsorted)."""
        return [e for e in self.by_id.values() if e.parent_id == parent_id]

    def label(self, entry_id: Any) -> Any:
        return self.labels.get(entry_id)

    def path_to(self, from_id: Any = MISSING) -> list[Entry]:
        """``getBranch``: root .. entry. A cycle in parentId ends the walk instead of hanging."""
        start = self.leaf_id if from_id is MISSING or from_id is None else from_id
        current = self.by_id.get(start) if js_truthy(start) else None
        return list(self._walk_up(current))

    def _forget_paths(self) -> None:
        """Drop the paths and contexts kept: the entries changed."""
        self._path_cache = None
        self._selected_cache = []

    def _walk_up(self, current: Entry | None) -> list[Entry]:
        """The path root..current (shared: callers must not change it)."""
        if current is None:
            return []
        cached = self._path_cache
        if cached is not None:
            if cached[0] is current:
                return cached[1]
            # An entry on the path walked last (a compaction, an earlier turn of the branch
            # shown): its path is the start of that one, found without a walk of 100,000 steps
            # (entries compare by identity: index() is a scan of pointers). Not where that walk
            # was cut at a parentId cycle: from inside the cycle the cut falls elsewhere.
            last = cached[1]
            top = last[0].parent_id if last else None
            if not top or top not in self.by_id:
                with contextlib.suppress(ValueError):
                    return last[: last.index(current) + 1]
        path = self._walk_up_uncached(current)
        self._path_cache = (current, path)
        return path

    def slot_map(self) -> SlotMap:
        """Each id's entry number and each entry's parent's number (:mod:`pitui.store.slots`),
        made when first asked for and kept while the entries only grow. Walks up the tree follow
        it once it is made (the tree makes it)."""
        slots = self._slots
        if slots is None or not slots.current(self.entries):
            slots = self._slots = SlotMap(self.entries)
        return slots

    def _walk_up_uncached(self, current: Entry | None) -> list[Entry]:
        slots = self._slots
        if slots is not None and not slots.current(self.entries):
            self._slots = slots = None  # an append changed earlier parents: made again when asked for
        if current is not None and slots is not None and not slots.falsy_ids:
            entries = self.entries
            start = slots.index.get(current.id)
            if start is not None and entries[start] is current:  # (not an entry a later one's id hides)
                numbers, cycle = slots.walk(start)
                walked = list(map(entries.__getitem__, numbers))
                if cycle:
                    return self._cut_cycle(walked)
                walked.reverse()
                return walked
        path: list[Entry] = []
        by_id = self.by_id
        limit = len(by_id)
        while current is not None:
            path.append(current)
            if len(path) > limit:  # more steps than entries: parentId has a cycle
                return self._cut_cycle(path)
            parent = current.parent_id
            current = by_id.get(parent) if parent else None
        path.reverse()
        return path

    @staticmethod
    def _cut_cycle(path: list[Entry]) -> list[Entry]:
        seen: set[int] = set()
        for index, entry in enumerate(path):
            if id(entry) in seen:
                path = path[:index]
                break
            seen.add(id(entry))
        path.reverse()
        return path

    def structure_problems(self) -> list[LineProblem]:
        """Entries whose parent is missing (shown as roots) and entries caught in a parentId
        cycle (reachable from no root: pi itself hangs when the leaf is among them)."""
        where = self.path or "<memory>"
        # the entries whose parent is not an id in the file, picked without a loop in Python
        orphans = itertools.compress(
            self.entries, map(operator.not_, map(self.by_id.__contains__, map(_PARENT, self.entries)))
        )
        problems = [
            LineProblem(where, e.line, f"entry {e.id}: its parent {e.parent_id} is not in the file; shown as a root")
            for e in orphans
            if e.parent_id and e.parent_id != e.id
        ]
        if _parents_first(self.entries, self.by_id):
            return problems  # every parent comes before its children: no cycle
        tree = self.tree()
        reached: set[int] = set()
        stack = list(tree.roots)
        while stack:
            node = stack.pop()
            if id(node) not in reached:
                reached.add(id(node))
                stack.extend(tree.children.get(node.id, ()))
        problems += [
            LineProblem(where, e.line, f"entry {e.id} is in a parentId cycle: reachable from no root")
            for e in self.by_id.values()
            if id(e) not in reached
        ]
        return problems

    def in_cycle(self, entry: Entry) -> bool:
        """Whether walking up from ``entry`` runs into a parentId cycle (pi would hang there)."""
        by_id = self.by_id
        limit = len(by_id)
        steps = 0
        current: Entry | None = entry
        while current is not None:
            steps += 1
            if steps > limit:
                return True
            parent = current.parent_id
            current = by_id.get(parent) if parent else None
        return False

    def tree(self) -> Tree:
        """``getTree``, built once and kept until the session changes."""
        if self._tree is None:
            self._tree = self._build_tree()
        return self._tree

    def _build_tree(self) -> Tree:
        roots: list[Entry] = []
        children: dict[Any, list[Entry]] = {}
        by_id = self.by_id
        unique = len(by_id) == len(self.entries)  # (then each entry is the node of its id)
        for entry in self.entries:
            node = entry if unique else by_id[entry.id]  # duplicate ids: pi places the last one, once per duplicate
            parent = entry.parent_id
            if parent is None or parent == entry.id or parent not in by_id:
                roots.append(node)
            else:
                children.setdefault(parent, []).append(node)
        for key, nodes in children.items():
            if len(nodes) > 1:
                children[key] = _sort_children(nodes)
        return Tree(roots, children)

    # ------------------------------------------------------------------ context

    def _context_leaf(self, leaf_id: Any) -> Entry | None:
        if leaf_id is None:
            return None
        leaf = self.by_id.get(leaf_id) if js_truthy(leaf_id) else None
        if leaf is None and self.entries:
            leaf = self.entries[-1]
        return leaf

    def context_entries(self, leaf_id: Any = MISSING) -> list[Entry]:
        """``buildContextEntries`` on the path to ``leaf_id``: the entries the model's context is
        built from (:func:`~pitui.store.context.select_entries`)."""
        leaf = self._context_leaf(self.leaf_id if leaf_id is MISSING else leaf_id)
        if leaf is None:
            return []
        for known, selected in self._selected_cache:
            if known is leaf:
                return list(selected)  # (a copy: callers may change theirs)
        unique = len(self.by_id) == len(self.entries)  # (no id twice: looked up in the map)
        selected = select_entries(self._walk_up(leaf), self.by_id if unique else None)
        self._selected_cache = [(leaf, selected), *self._selected_cache[:3]]
        return list(selected)

    def stats(self) -> SessionStats:
        """pi's ``/session`` totals of every entry (:func:`pitui.store.totals.session_stats`),
        counted on from the last count while the entries only grow (and, reopened from its
        index, from the count the index holds)."""
        return self.totals.of(self.entries)

    def projection(self, leaf_id: Any = MISSING) -> list[ProjectedEntry]:
        """``buildSessionProjection``: each context entry with the messages it gives the model,
        edits applied (:func:`~pitui.store.context.project`)."""
        return project(self.context_entries(leaf_id))

    def context_settings(self, leaf_id: Any = MISSING) -> tuple[Any, dict[str, Any] | None]:
        """The thinking level and model in force at ``leaf_id``: scanned over the whole path,
        the later entry winning (an assistant message sets the model too)."""
        leaf = self._context_leaf(self.leaf_id if leaf_id is MISSING else leaf_id)
        thinking: Any = "off"
        model: dict[str, Any] | None = None
        path = self._walk_up(leaf)
        # The later entry wins: each found by looking back from the leaf.
        for entry in reversed(path):
            if entry.type == "model_change":
                model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
                break
            if entry.provider_model is not None:
                provider, model_id = entry.provider_model
                model = {"provider": provider, "modelId": model_id}
                break
        types = [entry.type for entry in path]
        if "thinking_level_change" in types:
            thinking = path[len(types) - 1 - types[::-1].index("thinking_level_change")].get("thinkingLevel")
        return thinking, model

    def context(self, leaf_id: Any = MISSING) -> SessionContext:
        """``buildSessionContext``: the messages the model sees, with model and thinking level."""
        projection = self.projection(leaf_id)
        thinking, model = self.context_settings(leaf_id)
        messages = projected_messages(projection)
        return SessionContext(messages, thinking, model, [p.entry for p in projection], projection)


def _parents_first(entries: list[Entry], by_id: dict[Any, Entry]) -> bool:
    """Whether the ids are unique strings and every parent in the file is on an earlier line
    (as pi writes them): then walking up from any entry ends at a root. Without a loop in
    Python, for a big session."""
    if len(by_id) != len(entries):
        return False
    ids = list(map(_ID, entries))
    if set(map(type, ids)) != {str}:
        return not entries
    # Most parents are the entry just before (compared in C); the others are looked up.
    parents = list(map(_PARENT, entries))
    before = itertools.chain((None,), ids)
    for place in itertools.compress(itertools.count(), map(operator.ne, parents, before)):
        parent = by_id.get(parents[place])
        if parent is not None and parent.line >= entries[place].line:
            return False
    return True


_ID = operator.attrgetter("id")
_PARENT = operator.attrgetter("parent_id")
_UNTRIMMED = "skipped: it starts with a byte order mark or a space JSON does not allow (pi 1.6.0 cannot parse it)"
_JSON_SPACE = b" \t\r"


def _unparsable_for_pi(data: bytes, offset: int) -> bool:
    """Whether the line at ``offset`` (after the whitespace trimmed from the start of the file)
    starts, as pi 1.6.0 reads it, with whitespace that ``JSON.parse`` rejects (a BOM, say)."""
    if offset <= 0:
        return False
    lead = data[data.rfind(b"\n", 0, offset) + 1 : offset]
    return bool(lead.strip(_JSON_SPACE))


def _is_header(value: Any) -> bool:
    return type(value) is dict and value.get("type") == "session" and type(value.get("id")) is str


def _falsy_name(value: Any) -> str:
    if value is None:
        return "null"
    return "false" if value is False else '""' if value == "" else "0"


def _describe_bad_line(data: bytes, error: BadLine) -> str:
    if data.strip(b"\x00") == b"":
        return "skipped: a line of NUL bytes (a crash while writing?)"
    return f"skipped: {error}"
