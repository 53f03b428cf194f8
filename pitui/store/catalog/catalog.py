"""The catalog of sessions: pi's ``/resume`` listing, cached, and its search.

pi builds each row of its session picker (``buildSessionInfo``) by reading the whole file and
parsing every line. :class:`Catalog` computes the same row with the same rules
(:mod:`pitui.store.catalog.scan`), but keeps it in a SQLite cache keyed by path, size and mtime
(:mod:`pitui.store.catalog.db`), so that an unchanged file is never read again and a file that
only grew is read from where the last scan stopped. Many uncached files are scanned in worker
processes (:mod:`pitui.store.catalog.workers`); searching is :mod:`pitui.store.catalog.search`,
the optional full-text index :mod:`pitui.store.catalog.index`.
"""

from __future__ import annotations

import builtins
import math
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pitui.store.catalog import index
from pitui.store.catalog.codec import from_utf8
from pitui.store.catalog.db import (
    ROW_COLS,
    CatalogDB,
    cache_dir_default,
    info_from_row,
    path_range,
    rows_below,
    rows_for,
    rows_of,
    scan_state,
    write_transaction,
)
from pitui.store.catalog.model import (
    ListedFn,
    ListingCancelled,
    ListingProblem,
    ProgressFn,
    SearchCancelled,
    SearchHit,
    SessionInfo,
)
from pitui.store.catalog.order import by_mtime_then_name, modified_key, sort_by_file_name, sort_names
from pitui.store.catalog.scan import ScanState, os_reason
from pitui.store.catalog.stored import OldRow, drop_session, listed_row, outcome_bytes, store_outcomes
from pitui.store.catalog.workers import POOL_ERRORS, Job, Outcome, scan_in_pool, scan_job, worker_count
from pitui.store.paths import agent_dir as default_agent_dir
from pitui.store.paths import default_session_dir, session_dir_for, sessions_root

if TYPE_CHECKING:
    from pitui.store.catalog.search import CatalogSearch
    from pitui.store.catalog.usage import SessionUsage
    from pitui.store.query import SortMode

# (searching's modules are imported by the first search: a listing does without them)

__all__ = ["Catalog"]

T = TypeVar("T")

# Scan results written per transaction: few enough that a reader of the cache (another pitui)
# waits for one batch, many enough that committing costs little.
STORE_BATCH = 256
# With on_listed, scan results wait to be written until the rows are shown, up to this many
# bytes of their text: written as they come, they took the cores from the scan and the rows
# came 0.1 to 0.2 s later (the 2,000 sessions' texts are 37 MB).
SHOWN_FIRST_BYTES = 64 << 20


class Catalog:
    """pi's session listing (``list``, ``listAll``) and ``/resume`` search, over a SQLite cache.

    The cache lives in ``cache_dir`` (default ``$XDG_CACHE_HOME/pitui``). Nothing is ever written
    anywhere else: not the session folders (pi creates the default one on ``list``; this does
    not), not the files. A missing, old or corrupt cache is rebuilt; a cache that cannot be
    written at all is replaced by one in memory.

    ``problems`` lists the files the last listing skipped (vanished, unreadable, not a session).
    ``workers``: processes used to scan many uncached files (None: decide from the work).
    """

    def __init__(
        self,
        agent_dir: str | None = None,
        cache_dir: str | None = None,
        workers: int | None = None,
        *,
        index_in_background: bool = False,
    ) -> None:
        self.agent_dir = agent_dir or default_agent_dir()
        self.cache_dir = cache_dir or cache_dir_default()
        self.workers = workers
        self.problems: list[ListingProblem] = []
        self.stats = {"hits": 0, "resumed": 0, "scanned": 0}
        self._searcher: CatalogSearch | None = None
        self._listed_below: tuple[str, dict[str, tuple[Any, ...]]] | None = None  # (see _forget_missing)
        self._db = CatalogDB(self.cache_dir, on_reset=self._forget_texts)
        self._closing = threading.Event()  # set by close() until it has the cache: a listing stops
        # The full-text index, filled after each listing by a thread of its own (a long-running
        # program's choice: a one-shot command would leave it half done).
        self.indexer: index.BackgroundIndex | None = (
            index.BackgroundIndex(self._index_step) if index_in_background else None
        )

    @property
    def _search(self) -> CatalogSearch:
        if self._searcher is None:
            from pitui.store.catalog.search import CatalogSearch

            self._searcher = CatalogSearch()
        return self._searcher

    def _forget_texts(self) -> None:
        if self._searcher is not None:
            self._searcher.clear()

    @property
    def db_path(self) -> str:
        return self._db.path

    @property
    def text_cache_bytes(self) -> int:
        """Bytes of lower-cased search text kept in memory for searching, at most."""
        return self._search.text_cache_bytes

    @text_cache_bytes.setter
    def text_cache_bytes(self, value: int) -> None:
        self._search.text_cache_bytes = value

    def close(self) -> None:
        """Let the cache go. A listing under way in another thread stops at its next file
        (:class:`ListingCancelled`) rather than making this wait for the rest (a quitting app
        closes its catalog). The catalog opens its cache again when next used."""
        self._closing.set()
        try:
            if self.indexer is not None:
                self.indexer.cancel()
            self._db.close()
        finally:
            self._closing.clear()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _retrying(self, fn: Callable[[], T]) -> T:
        return self._db.retrying(fn)

    def read_cache(self, fn: Callable[[sqlite3.Connection, CatalogDB], T]) -> T:
        """``fn(connection, db)`` on the cache, under its lock (once more if it was damaged)."""
        return self._retrying(lambda: fn(self._db.conn(), self._db))

    # -- listing ----------------------------------------------------------------------------

    def list(
        self,
        cwd: str,
        session_dir: str | None = None,
        on_progress: ProgressFn | None = None,
        on_listed: ListedFn | None = None,
    ) -> builtins.list[SessionInfo]:
        """pi's ``SessionManager.list``: the sessions of the folder pi uses for ``cwd``.

        A custom folder (``session_dir``, ``$PI_CODING_AGENT_SESSION_DIR``) holds sessions of any
        project, so, as newer pi does, only those whose header ``cwd`` resolves to ``cwd`` are
        kept. The folder is never created. ``on_listed``: as for :meth:`list_all`.
        """
        folder, shared = self._folder_for(cwd, session_dir)
        listed = on_listed
        if shared and on_listed is not None:

            def listed(infos: builtins.list[SessionInfo], problems: builtins.list[ListingProblem]) -> None:
                on_listed(_of_project(infos, cwd), problems)

        infos = self.list_dir(folder, on_progress, listed)
        return _of_project(infos, cwd) if shared else infos

    def _folder_for(self, cwd: str, session_dir: str | None) -> tuple[str, bool]:
        """The folder :meth:`list` reads for ``cwd``, and whether it is a custom folder other
        than the default one (which may hold sessions of other projects)."""
        folder, custom = session_dir_for(cwd, session_dir)
        default = default_session_dir(cwd, self.agent_dir)
        if not custom:
            return default, False
        return folder, os.path.normpath(os.path.abspath(folder)) != os.path.normpath(default)

    def list_dir(
        self, folder: str, on_progress: ProgressFn | None = None, on_listed: ListedFn | None = None
    ) -> builtins.list[SessionInfo]:
        """Every session in one folder (pi 0.73.1's ``list(cwd, dir)``), ``modified`` first.
        ``on_listed``: as for :meth:`list_all`."""
        self.problems = []
        files = self._folder_files(folder)
        infos = self._list_paths(files, on_progress, below=folder, on_listed=on_listed)
        if not any(problem.path == folder for problem in self.problems):
            self._forget_missing(folder, 1, files)
        self._index_later()
        return infos

    def list_all(
        self, on_progress: ProgressFn | None = None, on_listed: ListedFn | None = None
    ) -> builtins.list[SessionInfo]:
        """pi's ``SessionManager.listAll``: the sessions in every folder directly under
        ``<agent>/sessions``, symbolic links to folders included (not files directly in it, not
        custom folders). Ties of ``modified`` are in pi's order: the file's mtime, newest first,
        then the file name, descending.

        ``on_listed(infos, problems)``: the rows and the files not listed, as soon as every file
        is read and before the cache is written (for a program that shows them at once; up to
        :data:`SHOWN_FIRST_BYTES` of scanned text is then held back from the cache until then).
        """
        self.problems = []
        root = sessions_root(self.agent_dir)
        try:
            with os.scandir(root) as it:
                # (a link to anything but a folder, a dangling one or a loop: pi's readdir of it
                # fails and it lists nothing there, as this does not look)
                dirs = sorted(e.path for e in it if _is_folder(e))
        except OSError:
            return []
        files: list[str] = []
        for folder in dirs:
            files.extend(self._folder_files(folder, ordered=False))  # (sorted whole below)
        stats = _stat_all(files)
        files = by_mtime_then_name(files, lambda path: stats[path].st_mtime_ns if path in stats else -math.inf)
        infos = self._list_paths(files, on_progress, stats, below=root, on_listed=on_listed)
        unreadable = {problem.path for problem in self.problems}
        self._forget_missing(root, 2, files, unreadable)
        self._index_later()
        return infos

    # -- the cached rows alone ---------------------------------------------------------------

    def cached_list(self, cwd: str, session_dir: str | None = None) -> builtins.list[SessionInfo]:
        """The rows :meth:`list` gave last time, from the cache alone: no folder or file is
        looked at, so this is instant whatever the number of sessions. Files changed, added or
        removed since are not seen; :meth:`list` is the truth. For showing a list at once."""
        folder, shared = self._folder_for(cwd, session_dir)
        infos = self._cached_under(folder, depth=1)
        return _of_project(infos, cwd) if shared else infos

    def cached_dir(self, folder: str) -> builtins.list[SessionInfo]:
        """:meth:`list_dir` as last cached (see :meth:`cached_list`)."""
        return self._cached_under(folder, depth=1)

    def cached_all(self) -> builtins.list[SessionInfo]:
        """:meth:`list_all` as last cached (see :meth:`cached_list`)."""
        return self._cached_under(sessions_root(self.agent_dir), depth=2)

    def _cached_under(self, folder: str, depth: int) -> builtins.list[SessionInfo]:
        """Cached session rows of files ``depth`` levels below ``folder`` (1: its files, 2: the
        files of its subfolders), ``modified`` first, as the listing orders them."""
        prefix, upper = path_range(folder)

        def work() -> list[SessionInfo]:
            rows = self._db.conn().execute(
                f"SELECT {ROW_COLS} FROM sessions WHERE ok = 1 AND path >= ? AND path < ? ORDER BY path",
                (prefix, upper),
            )
            return [info for row in rows if _at_depth((info := info_from_row(row)).path, prefix, depth)]

        infos = self._retrying(work)
        if depth == 1:
            sort_by_file_name(infos)
        else:
            infos = by_mtime_then_name(infos, lambda info: info.mtime_ns, lambda info: info.path)
        infos.sort(key=modified_key)
        return infos

    def _forget_missing(self, folder: str, depth: int, present: Sequence[str], keep: Iterable[str] = ()) -> None:
        """Drop the cached rows of files below ``folder`` that a listing no longer found (except
        in the folders of ``keep``, which could not be read), so that the cached rows are always
        those of the last listing."""
        prefix, upper = path_range(folder)
        found = set(present)
        kept = set(keep)
        # The rows the listing just read below this folder, if it read them all (rows_below)
        listed, self._listed_below = self._listed_below, None

        def work() -> None:
            conn = self._db.conn()
            stale = []
            if listed is not None and listed[0] == folder:
                rows: Iterable[tuple[Any, ...]] = ((row[0], row[1], row[16]) for row in listed[1].values())
            else:
                rows = conn.execute(
                    "SELECT sid, path, indexed FROM sessions WHERE path >= ? AND path < ?", (prefix, upper)
                )
            for sid, raw, indexed in rows:
                path = from_utf8(raw)
                if _at_depth(path, prefix, depth) and path not in found and os.path.dirname(path) not in kept:
                    stale.append((sid, indexed))
            if not stale:
                return
            with write_transaction(conn):
                for sid, indexed in stale:
                    drop_session(conn, sid, indexed)
                    if self._searcher is not None:
                        self._searcher.forget(sid)

        self._retrying(work)

    def _folder_files(self, folder: str, ordered: bool = True) -> builtins.list[str]:
        """The ``.jsonl`` files of ``folder`` in pi's order: ``b.localeCompare(a)``, so that
        sessions with the same ``modified`` are listed by file name, descending (``ordered``
        False: as the folder lists them, for a caller that sorts them all itself)."""
        try:
            names = [name for name in os.listdir(folder) if name.endswith(".jsonl")]
            if ordered:
                sort_names(names)
        except FileNotFoundError:
            return []
        except OSError as error:
            self.problems.append(ListingProblem(folder, os_reason(error).replace("file", "folder")))
            return []
        return [os.path.join(folder, name) for name in names]

    def _list_paths(
        self,
        paths: Sequence[str],
        on_progress: ProgressFn | None,
        stats: dict[str, os.stat_result] | None = None,
        below: str | None = None,
        on_listed: ListedFn | None = None,
    ) -> builtins.list[SessionInfo]:
        """The listing rows of ``paths``; ``stats``: the files' ``os.stat`` just taken, where
        known. ``below``: a folder every path is in, whose cached rows are read in one go (and
        kept for :meth:`_forget_missing`)."""
        return self._retrying(lambda: self._list_paths_once(paths, on_progress, stats or {}, below, on_listed))

    def _list_paths_once(
        self,
        paths: Sequence[str],
        on_progress: ProgressFn | None,
        stats: dict[str, os.stat_result],
        below: str | None,
        on_listed: ListedFn | None,
    ) -> builtins.list[SessionInfo]:
        conn = self._db.conn()
        total = len(paths)
        loaded = 0
        if below is None:
            cached = rows_for(conn, paths)
        else:
            cached = rows_below(conn, *path_range(below), paths)
            self._listed_below = (below, cached)
        results: dict[str, SessionInfo | None] = {}
        problems: dict[str, str] = {}
        jobs: list[Job] = []
        job_bytes = 0
        old_sids: dict[str, OldRow] = {}
        for path in paths:
            try:
                st = stats.get(path) or os.stat(path)
            except OSError as error:
                problems[path] = os_reason(error)
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            if not _is_regular(st.st_mode):
                problems[path] = "not a file"
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            row = cached.get(path)
            if row is not None and row[2] == st.st_size and row[3] == st.st_mtime_ns and row[4] == st.st_ino:
                self.stats["hits"] += 1
                if row[6]:
                    results[path] = info_from_row(row[:16])
                else:
                    problems[path] = row[7] or "not a session file"
                loaded += 1
                if on_progress:
                    on_progress(loaded, total)
                continue
            if row is not None and st.st_size > row[2] and row[4] == st.st_ino and row[5] == st.st_dev:
                blob, chk = scan_state(conn, row[0])
                state = ScanState.from_blob(blob)
                jobs.append((path, blob, chk))
                job_bytes += st.st_size - state.offset
                old_sids[path] = (row[0], state.offset, row[16])
            else:
                jobs.append((path, None, None))
                job_bytes += st.st_size
                if row is not None:
                    old_sids[path] = (row[0], 0, row[16])

        unstored: list[tuple[str, Outcome]] = []  # scan outcomes not written to the cache yet
        held = 0  # their bytes of text
        hold = SHOWN_FIRST_BYTES if on_listed is not None else 0
        for path, outcome in self._run_jobs(jobs, job_bytes):
            if self._closing.is_set():
                raise ListingCancelled(f"{total - loaded} files not read: the catalog is being closed")
            loaded += 1
            if on_progress:
                on_progress(loaded, total)
            listed_row(path, outcome, results, problems)
            unstored.append((path, outcome))
            held += outcome_bytes(outcome)
            if len(unstored) >= STORE_BATCH and held >= hold:
                store_outcomes(conn, unstored, old_sids, results, problems)
                unstored, held = [], 0

        infos = [info for path in paths if (info := results.get(path)) is not None]
        infos.sort(key=modified_key)
        unlisted = [ListingProblem(path, why) for path, why in problems.items()]
        if on_listed is not None:
            on_listed(infos, [*self.problems, *unlisted])
        for start in range(0, len(unstored), STORE_BATCH):
            store_outcomes(conn, unstored[start : start + STORE_BATCH], old_sids, results, problems)
        self.problems.extend(unlisted)
        return infos

    def _run_jobs(self, jobs: builtins.list[Job], job_bytes: int) -> Iterator[tuple[str, Outcome]]:
        workers = self.workers
        if workers is None:
            workers = worker_count(job_bytes, len(jobs))
        if workers <= 1:
            for job in jobs:
                self.stats["resumed" if job[1] is not None else "scanned"] += 1
                yield job[0], scan_job(*job)
            return
        done: set[str] = set()
        try:
            for job, outcome in scan_in_pool(jobs, workers):
                self.stats["resumed" if job[1] is not None else "scanned"] += 1
                done.add(job[0])
                yield job[0], outcome
        except POOL_ERRORS:  # pragma: no cover
            # No worker processes here: scan what is left in this one.
            self.workers = 0
            yield from self._run_jobs([job for job in jobs if job[0] not in done], 0)

    # -- text and search ---------------------------------------------------------------------

    def messages(self, info: SessionInfo | str) -> builtins.list[tuple[str | None, str, str]]:
        """The texts pi searches in, one per user/assistant message with text, in file order:
        ``(entry id, role, text)``. Empty for a file that was never listed."""
        path = info if isinstance(info, str) else info.path

        def work() -> list[tuple[str | None, str, str]]:
            conn = self._db.conn()
            sid = self._db.sids(conn, [path]).get(path)
            if sid is None:
                return []
            return [(row.entry_id, "assistant" if row.assistant else "user", row.text) for row in rows_of(conn, sid)]

        return self._retrying(work)

    def load_text(self, info: SessionInfo) -> str:
        """pi's ``allMessagesText`` of a listed session (also stored on ``info``)."""
        text = " ".join(text for _, _, text in self.messages(info))
        info.all_messages_text = text
        return text

    def search(
        self,
        query: str,
        scope: Iterable[SessionInfo | str] | None = None,
        mode: SortMode = "relevance",
        name_filter: str = "all",
        snippets: int | None = 50,
        cancelled: Callable[[], bool] | None = None,
    ) -> builtins.list[SearchHit]:
        """pi's ``/resume`` search over ``scope`` (listed sessions, or paths; None: ``list_all``).

        Matches, scores and order are pi's (``filterAndSortSessions``): ``mode`` is
        ``"threaded"``/``"relevance"`` (by score) or ``"recent"`` (the scope's order). An empty
        query returns the scope as it is. Raises :class:`~pitui.store.query.QueryError` for a
        bad ``re:`` pattern. The first ``snippets`` hits (all when None) get their snippet; fill
        in others with :meth:`snippet`. ``cancelled()`` is asked now and then: when it says
        yes, :class:`SearchCancelled` is raised.

        Each session's lower-cased fields are kept in memory after the first search, so a
        keystroke costs substring tests over the messages and fuzzy scores over names and cwds.
        """
        from pitui.store.query import has_session_name, order_indexes, parse_search_query

        parsed = parse_search_query(query)
        if scope is None:
            infos = self.list_all()
        else:
            items = list(scope)
            want = [item for item in items if isinstance(item, str)]
            if want:
                by_path = {info.path: info for info in self._list_paths(want, None)}
                listed = [by_path.get(item) if isinstance(item, str) else item for item in items]
                infos = [info for info in listed if info is not None]
            else:
                infos = items  # type: ignore[assignment]  # (rows listed already: every keystroke)
        if name_filter == "named":
            infos = [info for info in infos if has_session_name(info)]
        if parsed.empty:
            return [SearchHit(info, 0) for info in infos]
        found, scores, sids = self._retrying(lambda: self._match(infos, parsed, cancelled))
        order = order_indexes(scores, found, mode)
        hits = list(map(SearchHit, map(found.__getitem__, order), map(scores.__getitem__, order)))
        for hit, i in zip(hits[:snippets] if snippets is not None else hits, order, strict=False):
            sid = sids[i]
            if sid is None:
                continue
            if cancelled is not None and cancelled():
                raise SearchCancelled

            def fill(hit: SearchHit = hit, sid: int = sid) -> None:
                self._search.snippet(self._db.conn(), hit, sid, parsed)

            self._retrying(fill)
        return hits

    def snippet(self, hit: SearchHit, query: str) -> SearchHit:
        """Fill in ``hit``'s snippet for ``query`` (for hits past the ``snippets`` limit)."""
        from pitui.store.query import parse_search_query

        parsed = parse_search_query(query)

        def work() -> None:
            conn = self._db.conn()
            sid = self._db.sids(conn, [hit.info.path]).get(hit.info.path)
            if sid is not None:
                self._search.snippet(conn, hit, sid, parsed)

        self._retrying(work)
        return hit

    def prepare_search(self, infos: Iterable[SessionInfo], cancelled: Callable[[], bool] | None = None) -> bool:
        """Make ready, ahead of the first search over ``infos``, what every search needs: the
        sessions' lower-cased texts in memory. A batch of sessions at a time, so a search that
        comes meanwhile waits for one batch at most. True when done (not cancelled, and the
        memory allowance was not used up)."""
        from pitui.store.catalog.search import WARM_UP_BATCH

        infos = list(infos)
        for i in range(0, len(infos), WARM_UP_BATCH):
            if cancelled is not None and cancelled():
                return False
            if self._search.full:
                return False
            batch = infos[i : i + WARM_UP_BATCH]

            def work(batch: list[SessionInfo] = batch) -> None:
                conn = self._db.conn()
                sids = self._db.sids(conn, [info.path for info in batch])
                self._search.prepare(conn, {sids[info.path]: info for info in batch if info.path in sids})

            self._retrying(work)
        return True

    def _match(
        self, infos: builtins.list[SessionInfo], parsed: Any, cancelled: Callable[[], bool] | None = None
    ) -> tuple[builtins.list[SessionInfo], builtins.list[float], builtins.list[int | None]]:
        """The sessions of ``infos`` that match, in their order, with their scores and sids (the
        sessions not in the cache yet are listed first)."""
        conn = self._db.conn()
        paths = [info.path for info in infos]
        sids = self._db.sids(conn, paths)
        missing = [path for path in paths if path not in sids] if len(sids) < len(paths) else []
        if missing:
            self._list_paths(missing, None)
            sids.update(self._db.sids(conn, missing))
        return self._search.match(conn, infos, sids, parsed, cancelled)

    def usage(
        self,
        infos: Iterable[SessionInfo],
        on_progress: ProgressFn | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> dict[str, SessionUsage]:
        """Each listed session's usage by local day and source, by path (:mod:`.usage`); it stops
        early when ``cancelled()`` says so, or when the catalog is being closed."""
        from pitui.store.catalog.usage import sessions_usage

        def stop() -> bool:
            return self._closing.is_set() or (cancelled is not None and cancelled())

        paths = [info.path for info in infos]
        return sessions_usage(self._db, paths, on_progress, self.workers, stop)

    # -- full-text index --------------------------------------------------------------------

    def pending_index(self) -> int:
        """How many cached sessions are not in the full-text index yet."""
        return self._retrying(lambda: index.pending_index(self._db.conn()))

    def _index_later(self) -> None:
        """After a listing: the sessions it added go into the full-text index, in the background."""
        if self.indexer is not None:
            self.indexer.start()

    def _index_step(self) -> bool:
        """One step of the background indexer: a transaction of at most ``STEP_BYTES`` of text."""
        return self._retrying(lambda: index.build_index(self._db.conn(), 0.0, index.INDEX_BATCH, index.STEP_BYTES))

    def build_index(self, budget_s: float | None = None, batch: int = index.INDEX_BATCH) -> bool:
        """Add the sessions listed so far to the full-text index, a batch per transaction.

        Listing leaves this out to stay fast; searching is exact without it (sessions not yet in
        the index are searched by reading their text). Run it in a background thread after a
        listing; ``budget_s`` stops after that many seconds. True when nothing is left to do.
        """
        deadline = None if budget_s is None else time.monotonic() + budget_s
        return self._retrying(lambda: index.build_index(self._db.conn(), deadline, batch))


def _at_depth(path: str, prefix: str, depth: int) -> bool:
    """Whether ``path`` is a .jsonl file ``depth`` levels below the folder ``prefix`` names."""
    rest = path[len(prefix) :]
    return rest.endswith(".jsonl") and rest.count(os.sep) == depth - 1


def _of_project(infos: list[SessionInfo], cwd: str) -> list[SessionInfo]:
    """The sessions whose header ``cwd`` resolves to ``cwd``."""
    target = _resolve(cwd)
    return [info for info in infos if info.cwd and _resolve(info.cwd) == target]


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """A folder, or a symbolic link to one (pi 1.6's ``listAll`` takes both)."""
    try:
        return entry.is_dir()
    except OSError:
        return False  # a link loop


def _is_regular(mode: int) -> bool:
    return stat.S_ISREG(mode)


def _resolve(path: str) -> str:
    return os.path.normpath(os.path.abspath(os.path.expanduser(path)))


def _stat_all(paths: Iterable[str]) -> dict[str, os.stat_result]:
    """``os.stat`` of each path that has one (what the listing sorts by, and then compares with
    its cache)."""
    out = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue  # (its mtime counts as -infinity; the listing says why it is not listed)
        out[path] = st
    return out
