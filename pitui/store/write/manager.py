"""pi's SessionManager API, mirrored: ``SessionManager`` in Python, with pi's newer semantics.

For code that drives a session as pi does (and for tests against pi). The methods mirror pi's
``SessionManager`` (reference §5) in snake_case. Where the reference names a bug in pi, this
class does the right thing instead:

- opening never writes: old (v1/v2) files are migrated in memory, and rewritten (atomically, the
  original kept in the trash) only when something is appended to them;
- a non-empty file that is not a session is refused, never truncated;
- a new file is created (never over another) once it holds a user or assistant message, as pi
  1.6 does; appends to an existing file go straight to it (no duplicated header), each a whole line;
- ``create_branched_session`` re-chains the kept entries, so no entry is left an orphan, and
  writes the new file whole and exclusively (pi truncates and writes line by line);
- ``fork_from`` migrates an old source first, so the copy's entries have ids.
"""

from __future__ import annotations

import builtins
import os
import re
from collections.abc import Callable, Iterable
from typing import Any, cast

from pitui.store import paths
from pitui.store.ids import generate_id, now_iso, uuid7
from pitui.store.js import MISSING, js_trim
from pitui.store.jsonl import dumps
from pitui.store.migrate import CURRENT_VERSION
from pitui.store.model import DiskState, Entry, FileChangedError, NotASessionError, SessionContext, Tree
from pitui.store.reader import Session
from pitui.store.write.writer import append_lines, create_file, rewrite_file

ProgressCallback = Callable[[int, int], None]


_SESSION_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")  # newer pi's rule; it names the file


# The message roles pi 1.6's appendContextEdit edits (and custom_message entries). A tuple: a
# role may be any JSON value, a list too, which no set can hold.
EDITABLE_ROLES = ("user", "assistant", "toolResult")


class ContextEditError(ValueError):
    """A context edit pi's ``appendContextEdit`` refuses; nothing was written."""


class EntryNotFoundError(KeyError):
    def __str__(self) -> str:
        return f"Entry {self.args[0]} not found"


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<timestamp with : and . as ->_<id>.jsonl``, pi's file name."""
    return timestamp.replace(":", "-").replace(".", "-") + f"_{session_id}.jsonl"


def holds_conversation(entries: Iterable[Entry]) -> bool:
    """pi's ``_hasConversation``: a user or assistant message. A new session's file is created
    only once it holds one (pi 1.6; setup entries alone stay in memory)."""
    return any(e.type == "message" and e.role in ("user", "assistant") for e in entries)


class SessionManager:
    """One session, in a file or in memory, with pi's append-only tree API."""

    def __init__(
        self, cwd: str, session_dir: str, session_file: str | None, persist: bool, session: Session | None = None
    ) -> None:
        """``session``: ``session_file`` as it was already read (else the file is read here).

        Appends then go to the file and into ``session``, so a view holding it stays current;
        an append is refused if the file changed since ``session`` last read it.
        The cwd is held resolved, as pi 1.6 holds it (so headers pitui writes name it so).
        """
        self._cwd = paths.resolve_path(cwd)
        self._session_dir = session_dir
        self._persist = persist
        self._session_file: str | None = None
        self._session = session if session is not None else Session()
        self._flushed = False
        self._empty_file = False
        if session is not None:
            if not session_file:
                raise ValueError("a session already read needs the file it was read from")
            self._adopt(os.path.abspath(session_file), session)
        elif session_file:
            self.set_session_file(session_file)
        else:
            self.new_session()

    # ------------------------------------------------------------------ constructors

    @classmethod
    def create(cls, cwd: str, session_dir: str | None = None) -> SessionManager:
        """A new session for ``cwd``, stored in ``session_dir`` or pi's folder for ``cwd``."""
        return cls(cwd, session_dir or paths.default_session_dir(cwd), None, True)

    @classmethod
    def open(cls, path: str, session_dir: str | None = None, cwd_override: str | None = None) -> SessionManager:
        """Open a session file. Raises :class:`NotASessionError` for a foreign or corrupt file."""
        session = Session.load(path) if os.path.exists(path) else Session(path)
        return cls.attach(session, path, session_dir, cwd_override)

    @classmethod
    def attach(
        cls, session: Session, path: str | None = None, session_dir: str | None = None, cwd_override: str | None = None
    ) -> SessionManager:
        """A manager over a session already read from ``path`` (default: where it was read),
        its cwd the header's, its session folder the file's (see :meth:`__init__`)."""
        path = path or session.path
        if path is None:
            raise ValueError("the session was not read from a file")
        header_cwd = (session.header or {}).get("cwd")
        cwd = cwd_override if cwd_override is not None else header_cwd if isinstance(header_cwd, str) else os.getcwd()
        return cls(cwd, session_dir or os.path.dirname(os.path.abspath(path)), path, True, session=session)

    @classmethod
    def continue_recent(cls, cwd: str, session_dir: str | None = None) -> SessionManager:
        """The most recently modified session (by file mtime) in the folder, else a new one."""
        folder = session_dir or paths.default_session_dir(cwd)
        recent = _most_recent_session(folder)
        if recent:
            return cls(cwd, folder, recent, True)
        return cls(cwd, folder, None, True)

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        """A session that is never written."""
        return cls(cwd or os.getcwd(), "", None, False)

    @classmethod
    def fork_from(cls, source_path: str, target_cwd: str, session_dir: str | None = None) -> SessionManager:
        """Copy a whole session (any project) into a new file for ``target_cwd``."""
        try:
            source = Session.load(source_path)
        except NotASessionError as error:
            raise ValueError(f"Cannot fork: source session file is empty or invalid: {source_path}") from error
        if source.header is None:
            raise ValueError(f"Cannot fork: source session file is empty or invalid: {source_path}")
        target_cwd = paths.resolve_path(target_cwd)
        folder = session_dir or paths.default_session_dir(target_cwd)
        session_id = uuid7()
        timestamp = now_iso()
        new_file = os.path.join(folder, session_file_name(timestamp, session_id))
        header = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": session_id,
            "timestamp": timestamp,
            "cwd": target_cwd,
            "parentSession": paths.resolve_path(source_path),
        }
        create_file(new_file, [dumps(header), *(dumps(e.data) for e in source.entries)])
        return cls(target_cwd, folder, new_file, True)

    @staticmethod
    def list(
        cwd: str, session_dir: str | None = None, on_progress: ProgressCallback | None = None
    ) -> builtins.list[Any]:
        """pi's ``SessionManager.list``: the sessions of one folder, newest first."""
        from pitui.store.catalog import Catalog

        return Catalog().list(cwd, session_dir, on_progress=on_progress)

    @staticmethod
    def list_all(on_progress: ProgressCallback | None = None) -> builtins.list[Any]:
        """pi's ``SessionManager.listAll``: every project's sessions, newest first."""
        from pitui.store.catalog import Catalog

        return Catalog().list_all(on_progress=on_progress)

    # ------------------------------------------------------------------ switching files

    def new_session(self, id: str | None = None, parent_session: str | None = None) -> str | None:
        """Start an empty session; nothing is written until there is something worth keeping."""
        if id is not None and not _SESSION_ID.fullmatch(id):
            raise ValueError(f"invalid session id {id!r}: letters, digits, '.', '_' and '-' only")
        session_id = id or uuid7()
        timestamp = now_iso()
        session = Session()
        session.header = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": session_id,
            "timestamp": timestamp,
            "cwd": self._cwd,
        }
        if parent_session is not None:
            session.header["parentSession"] = parent_session
        self._session = session
        self._flushed = False
        if self._persist:
            self._session_file = os.path.join(self._session_dir, session_file_name(timestamp, session_id))
        return self._session_file

    def set_session_file(self, path: str) -> None:
        """Switch to another file. A missing file becomes a new session at that path."""
        path = os.path.abspath(path)
        if os.path.exists(path):
            self._adopt(path, Session.load(path))
        else:
            self.new_session()
            self._session_file = path

    def _adopt(self, path: str, session: Session) -> None:
        if session.header is None:  # an empty file: a new session written into it later
            self.new_session()
            self._session_file = path
            self._flushed = False
            self._empty_file = True
            return
        self._session = session
        self._session_file = path
        self._flushed = True
        self._empty_file = False

    # ------------------------------------------------------------------ persistence

    def _write_entry(self, data: dict[str, Any]) -> str:
        data = {key: value for key, value in data.items() if value is not MISSING}
        entry = Entry.from_data(data)
        session = self._session
        if self._persist and self._session_file:
            if self._flushed:
                self._check_unchanged()
                if session.migrated:
                    self._rewrite_migrated(extra=entry)
                    session.source = None  # the offsets read are gone: following it needs a new read
                else:
                    append_lines(self._session_file, [dumps(data)])
                    session.note_own_append(entry, DiskState.of(os.stat(self._session_file)))
            elif holds_conversation([*session.entries, entry]):
                self._flush_all(extra=entry)
            if self._flushed:
                session.disk = DiskState.of(os.stat(self._session_file))
        session.add(entry)
        return cast(str, entry.id)  # every entry written here was given a generated id

    def _check_unchanged(self) -> None:
        """Refuse to write on the strength of a stale read: an entry's parent is the leaf as
        it was read, and pi may have appended since (open the file again and retry)."""
        expected = self._session.disk
        if expected is None or self._session_file is None:
            return
        try:
            now = DiskState.of(os.stat(self._session_file))
        except FileNotFoundError:
            raise FileChangedError(f"{self._session_file} is gone since it was read: nothing written") from None
        if now != expected:
            raise FileChangedError(
                f"{self._session_file} changed on disk since it was read (is pi writing to it?): nothing written"
            )

    def _all_lines(self, extra: Entry | None = None) -> builtins.list[bytes]:
        entries = [*self._session.entries, *([extra] if extra else [])]
        return [dumps(self._session.header), *(dumps(e.data) for e in entries)]

    def _flush_all(self, extra: Entry | None = None) -> None:
        assert self._session_file is not None
        lines = self._all_lines(extra)
        if self._empty_file and os.path.exists(self._session_file) and os.path.getsize(self._session_file) == 0:
            append_lines(self._session_file, lines)
        else:
            create_file(self._session_file, lines)
        self._flushed = True
        self._empty_file = False

    def _rewrite_migrated(self, extra: Entry) -> None:
        """An old file's first write: the whole file, migrated, replaces it atomically.

        Lines that are not entries (unreadable ones, a second header) are kept as they were,
        where they were: pi skips them again, and nothing of the user's file is dropped.
        """
        assert self._session_file is not None
        session = self._session
        placed: list[tuple[int, bytes]] = [(session.header_offset, dumps(session.header))]
        placed += [(e.offset, dumps(e.data)) for e in session.entries]
        if session.unparsed:
            if session.source is None:
                raise FileChangedError(f"{self._session_file}: its unreadable lines cannot be kept; nothing written")
            placed += [(offset, session.source.raw(offset, length)) for offset, length in session.unparsed]
        placed.sort(key=lambda item: item[0])
        rewrite_file(self._session_file, [line for _, line in placed] + [dumps(extra.data)])
        session.original_version = CURRENT_VERSION
        session.unparsed = []

    def _new_entry(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "type": kind,
            "id": generate_id(self._session.by_id),
            "parentId": self._leaf_for_append(),
            "timestamp": now_iso(),
            **fields,
        }

    def _leaf_for_append(self) -> Any:
        leaf = self._session.leaf_id
        return None if leaf is MISSING else leaf

    # ------------------------------------------------------------------ appends

    def append_message(self, message: dict[str, Any]) -> str:
        """Append a message as a child of the leaf; the leaf moves to it."""
        return self._write_entry(self._new_entry("message", message=message))

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._write_entry(self._new_entry("thinking_level_change", thinkingLevel=thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._write_entry(self._new_entry("model_change", provider=provider, modelId=model_id))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Any = None,
    ) -> str:
        """A compaction. Arguments left as None are left out of the entry, as pi leaves out
        undefined ones."""
        return self._write_entry(
            self._new_entry(
                "compaction",
                summary=summary,
                firstKeptEntryId=_given(first_kept_entry_id),
                tokensBefore=tokens_before,
                details=_given(details),
                fromHook=_given(from_hook),
                usage=_given(usage),
            )
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Extension state: not part of the model's context."""
        entry = {
            "type": "custom",
            "customType": custom_type,
            "data": _given(data),
            "id": generate_id(self._session.by_id),
            "parentId": self._leaf_for_append(),
            "timestamp": now_iso(),
        }
        return self._write_entry(entry)

    def append_session_info(self, name: str) -> str:
        """Name the session (an empty name clears it). Line breaks become spaces."""
        return self._write_entry(self._new_entry("session_info", name=clean_name(name)))

    def append_custom_message_entry(self, custom_type: str, content: Any, display: bool, details: Any = None) -> str:
        """A message from an extension that is part of the model's context."""
        entry = {
            "type": "custom_message",
            "customType": custom_type,
            "content": content,
            "display": display,
            "details": _given(details),
            "id": generate_id(self._session.by_id),
            "parentId": self._leaf_for_append(),
            "timestamp": now_iso(),
        }
        return self._write_entry(entry)

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Set (or, with ``None``/empty, clear) a label. The entry hangs off the current leaf."""
        if target_id not in self._session.by_id:
            raise EntryNotFoundError(target_id)
        return self._write_entry(self._new_entry("label", targetId=target_id, label=_given(label)))

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None) -> str:
        """Omit (``None``) or replace (``{"content": str | list}``) an earlier entry's part of
        the model's context, as pi 1.6's ``appendContextEdit``: the target must be on the
        active branch and a user, assistant or tool result message or a custom message; a
        string for an assistant or tool result is stored as one text block. Refused with
        :class:`ContextEditError` (nothing written) otherwise, with pi's message."""
        if replacement is not None and not (
            type(replacement) is dict and type(replacement.get("content", MISSING)) in (str, builtins.list)
        ):
            raise ContextEditError("Context edit replacement must be null or contain string/array content")
        session = self._session
        target = session.entry(target_id)
        if target is None:
            raise EntryNotFoundError(target_id)
        if not any(e.id == target_id for e in session.path_to()):
            raise ContextEditError(f"Entry {target_id} is not on the active branch")
        if not (target.type == "custom_message" or (target.type == "message" and target.role in EDITABLE_ROLES)):
            raise ContextEditError(f"Entry {target_id} does not contribute editable model content")
        if replacement is not None and target.type == "message" and target.role != "user":
            content = replacement["content"]
            if type(content) is str:
                replacement = {"content": [{"type": "text", "text": content}]}
        return self._write_entry(self._new_entry("context_edit", targetId=target_id, replacement=replacement))

    # ------------------------------------------------------------------ tree

    def get_leaf_id(self) -> Any:
        return self._session.leaf_id

    def get_leaf_entry(self) -> dict[str, Any] | None:
        leaf = self._session.leaf()
        return leaf.data if leaf else None

    def get_entry(self, entry_id: str) -> dict[str, Any] | None:
        entry = self._session.entry(entry_id)
        return entry.data if entry else None

    def get_children(self, parent_id: str | None) -> builtins.list[dict[str, Any]]:
        return [e.data for e in self._session.children(parent_id)]

    def get_label(self, entry_id: str) -> Any:
        return self._session.label(entry_id)

    def get_branch(self, from_id: str | None = None) -> builtins.list[dict[str, Any]]:
        """Entries from the root to ``from_id`` (default: the leaf)."""
        return [e.data for e in self._session.path_to(MISSING if from_id is None else from_id)]

    def get_tree(self) -> Tree:
        return self._session.tree()

    def move_leaf_in_memory(self, branch_from_id: str) -> None:
        """pi's ``branch``: move the leaf to an earlier entry, in memory only (nothing is written;
        ``actions.move_leaf`` persists a move)."""
        if branch_from_id not in self._session.by_id:
            raise EntryNotFoundError(branch_from_id)
        self._session.leaf_id = branch_from_id

    # pi's own name for it (SessionManager.branch), kept only so this class mirrors pi's API.
    branch = move_leaf_in_memory

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry: the next append is a new root."""
        self._session.leaf_id = None

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Any = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` and append a summary of the abandoned branch there.

        ``fromId`` is the leaf before the move (``"root"`` when there was none), as pi writes it
        since 0.84.3 (0.73.1 wrote the new parent, which says nothing the parent does not)."""
        if branch_from_id is not None and branch_from_id not in self._session.by_id:
            raise EntryNotFoundError(branch_from_id)
        previous_leaf = self._leaf_for_append()
        self._session.leaf_id = branch_from_id
        entry = self._new_entry(
            "branch_summary",
            fromId=previous_leaf if previous_leaf is not None else "root",
            summary=summary,
            details=_given(details),
            usage=_given(usage),
            fromHook=_given(from_hook),
        )
        return self._write_entry(entry)

    def create_branched_session(self, leaf_id: str) -> str | None:
        """A new session holding only the path root..``leaf_id`` (pi's ``/fork``, ``/clone``).

        Label entries are dropped from the path and the kept entries re-chained, so none is left
        an orphan (the first kept entry becomes a root); a kept compaction whose
        ``firstKeptEntryId`` named a dropped label names the next kept entry instead (retain-none,
        its own id, stays). The labels of kept entries follow as a chain at the end, with their
        original timestamps. The new file records this one as ``parentSession``. It is created
        at once if it holds a user or assistant message (:func:`holds_conversation`), else with
        the first one, as pi does. An old (v1/v2) source was migrated when it was read, so the
        copy is a v3 session whose entries all have ids (pi copies them unmigrated).
        """
        previous_file = self._session_file
        full_path = self._session.path_to(leaf_id)
        if not full_path:
            raise EntryNotFoundError(leaf_id)
        session_id = uuid7()
        timestamp = now_iso()
        header = {
            "type": "session",
            "version": CURRENT_VERSION,
            "id": session_id,
            "timestamp": timestamp,
            "cwd": self._cwd,
        }
        if self._persist and previous_file:
            header["parentSession"] = previous_file
        path: list[Entry] = []
        kept: list[dict[str, Any]] = []
        replacement: dict[str, Any] = {}  # a dropped label's id -> the next kept entry's
        pending: list[Any] = []
        parent: Any = None
        for entry in full_path:
            if entry.type == "label":
                pending.append(entry.id)
                continue
            replacement.update((label_id, entry.id) for label_id in pending if isinstance(label_id, str))
            pending.clear()
            data = dict(entry.data)
            data["parentId"] = parent
            if entry.type == "compaction":
                first_kept = data.get("firstKeptEntryId", MISSING)
                if first_kept != entry.id and isinstance(first_kept, str) and first_kept in replacement:
                    data["firstKeptEntryId"] = replacement[first_kept]
            path.append(entry)
            kept.append(data)
            parent = data["id"]
        kept_ids = {e.id for e in path}  # as the labels name them (a list id is hashable there)
        taken: set[Any] = set(kept_ids)
        for target, label in self._session.labels.items():
            if target not in kept_ids:
                continue
            label_id = generate_id(taken)
            kept.append(
                {
                    "type": "label",
                    "id": label_id,
                    "parentId": parent,
                    "timestamp": self._session.label_times.get(target, timestamp),
                    "targetId": target,
                    "label": label,
                }
            )
            parent = label_id
        session = Session()
        session.header = header
        for data in kept:
            session.add(Entry.from_data(data))
        self._session = session
        if not self._persist:
            return None
        self._session_file = os.path.join(self._session_dir, session_file_name(timestamp, session_id))
        self._flushed = False
        self._empty_file = False
        if holds_conversation(session.entries):
            self._flush_all()
        return self._session_file

    # ------------------------------------------------------------------ context and accessors

    def build_context_entries(self) -> builtins.list[dict[str, Any]]:
        return [e.data for e in self._session.context_entries()]

    def build_session_context(self) -> SessionContext:
        return self._session.context()

    def get_entries(self) -> builtins.list[dict[str, Any]]:
        return [e.data for e in self._session.entries]

    def get_header(self) -> dict[str, Any] | None:
        return self._session.header

    def get_session_name(self) -> str | None:
        return self._session.name

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str:
        return self._session_dir

    def get_session_id(self) -> str:
        return self._session.session_id or ""

    def get_session_file(self) -> str | None:
        return self._session_file

    def is_persisted(self) -> bool:
        return self._persist

    @property
    def session(self) -> Session:
        """The underlying model (tree, labels, problems) for views."""
        return self._session


def _given(value: Any) -> Any:
    return MISSING if value is None else value


def clean_name(name: str) -> str:
    """A session name as it is written: line breaks become spaces, then JavaScript's trim."""
    return js_trim(" ".join(re.split(r"[\r\n]+", name)))


def _most_recent_session(folder: str) -> str | None:
    """The newest ``*.jsonl`` (by mtime) whose first line is a session header."""
    from pitui.store.jsonl import BadLine, parse_line

    best: tuple[float, str] | None = None
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    for name in names:
        if not name.endswith(".jsonl"):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                first = handle.readline(1 << 20)
            header = parse_line(first)
            mtime = os.stat(path).st_mtime
        except (OSError, BadLine):
            continue
        if (
            isinstance(header, dict)
            and header.get("type") == "session"
            and isinstance(header.get("id"), str)
            and (best is None or mtime > best[0])
        ):
            best = (mtime, path)
    return best[1] if best else None
