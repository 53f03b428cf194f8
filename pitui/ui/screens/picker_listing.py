"""The picker's listing state, per scope: what is known, when to list again, which folders.

A plain class (no Textual): :class:`~pitui.ui.screens.picker.PickerScreen` runs the listing
workers and the watcher, and asks :class:`PickerListing` what to list, whether a listing is
to start or to wait for the one under way, and which scopes a change on disk touches. It also
keeps the real paths the listing threads resolved (pi threads and protects sessions by real
path), and which sessions' folders no longer exist (looked at once per folder and listing).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from msgspec import Struct, field

from pitui.store.catalog import Scope
from pitui.store.paths import listed_folder, misplaced_agent_dir, real_path_cached, session_dir_for
from pitui.store.session_cwd import missing_cwds
from pitui.ui.format import fit_middle, row_title, shorten_home_path

if TYPE_CHECKING:
    from pitui.store.catalog import Catalog, ListingProblem, SessionInfo
    from pitui.store.catalog.model import ListedFn

__all__ = ["PickerListing", "Resolved", "ScopeState"]

SCOPES: tuple[Scope, ...] = ("current", "all")


class ScopeState(Struct):
    """The sessions of one scope, as far as they are known."""

    infos: list[SessionInfo] | None = None  # None: nothing yet, not even from the cache
    complete: bool = False  # a full listing has finished
    loading: bool = False
    again: bool = False  # something changed while loading: list once more afterwards
    progress: tuple[int, int] | None = None
    problems: list[ListingProblem] = field(default_factory=list)


class Resolved(Struct, frozen=True):
    """What a listing thread looked up on disk for its rows: real paths not known before, and
    the header cwds whose folder no longer exists."""

    canon: dict[str, str]
    gone: frozenset[str]


class PickerListing:
    """The two scopes of the picker (``current``: this folder's sessions, ``all``), for the
    folder ``cwd`` and pi's ``--session-dir`` ``session_dir`` (None: pi's default)."""

    def __init__(self, cwd: str, session_dir: str | None, agent_dir: str) -> None:
        self.cwd = cwd
        self.session_dir = session_dir
        self.agent_dir = agent_dir
        self.states: dict[Scope, ScopeState] = {scope: ScopeState() for scope in SCOPES}
        self._canon: dict[str, str] = {}  # path -> real path, made in the listing threads
        self.gone_cwds: frozenset[str] = frozenset()  # header cwds whose folder is gone (last listing)

    def folders(self) -> tuple[str, str, bool]:
        """This folder's session folder, the folder "all" lists, and whether it is a custom
        (flat) one, in which case "all" is that whole folder (as ``pitui ls --all``)."""
        cwd, explicit, agent = self.cwd, self.session_dir, self.agent_dir
        return (
            listed_folder(cwd, explicit, agent, False),
            listed_folder(cwd, explicit, agent, True),
            session_dir_for(cwd, explicit)[1],
        )

    # -- when to list ------------------------------------------------------------------------

    def start(self, scope: Scope) -> bool:
        """A listing of ``scope`` is wanted: whether to start one now (else the one under way
        lists once more when it ends)."""
        state = self.states[scope]
        if state.loading:
            state.again = True
            return False
        state.loading = True
        return True

    def loaded(
        self, scope: Scope, infos: list[SessionInfo], problems: list[ListingProblem] | None, found: Resolved
    ) -> None:
        """Rows of ``scope``: the cached ones (``problems`` None) or a full listing's, with what
        the listing thread looked up for them (:meth:`resolve`)."""
        self._canon.update(found.canon)
        listed = {info.cwd for info in infos}
        self.gone_cwds = frozenset(cwd for cwd in self.gone_cwds if cwd not in listed) | found.gone
        state = self.states[scope]
        state.infos = infos
        if problems is not None:
            state.problems = problems
            state.complete = True

    def failed(self, scope: Scope) -> None:
        state = self.states[scope]
        if state.infos is None:
            state.infos = []
        state.complete = True

    def finish(self, scope: Scope) -> bool:
        """A listing of ``scope`` ended: whether to list it again (something changed meanwhile)."""
        state = self.states[scope]
        state.loading = False
        state.progress = None
        again, state.again = state.again, False
        return again

    def touched(self, paths: Iterable[str]) -> list[Scope]:
        """The scopes a change on disk at ``paths`` lists again (those shown or listing)."""
        paths = list(paths)
        current, everything, _ = self.folders()
        scopes = []
        for scope, folder in zip(SCOPES, (current, everything), strict=True):
            state = self.states[scope]
            if state.infos is None and not state.loading:
                continue  # never shown: listed when it is
            inside = os.path.join(folder, "")
            if any(p == folder or p.startswith(inside) or folder.startswith(os.path.join(p, "")) for p in paths):
                scopes.append(scope)
        return scopes

    def empty_text(self, scope: Scope, named_only: bool, keys: Callable[[str], str], width: int) -> str:
        """What the list of ``scope`` says when it has no rows (pi's empty states, or better):
        loading, or where it looked. ``keys`` gives the keys of a binding id; a folder is fit
        into ``width`` cells."""
        state = self.states[scope]
        if not state.complete and not state.infos:
            count = f" {state.progress[0]}/{state.progress[1]}" if state.progress else ""
            return f"  Loading sessions…{count}"
        named, scope_key = keys("picker.named"), keys("picker.scope")
        if named_only:
            if scope == "all":
                return f"  No named sessions found. Press {named} to show all."
            return f"  No named sessions in current folder. Press {named} to show all, or {scope_key} to view all."
        folder = self.folders()[1 if scope == "all" else 0]
        folder = fit_middle(shorten_home_path(folder, os.path.expanduser("~")), width)  # one line, whole words
        if scope == "all":
            text = f"  No sessions found\n  Looked in {folder}"
        else:
            text = f"  No sessions in current folder. Press {scope_key} to view all.\n  Looked in {folder}"
        misplaced = misplaced_agent_dir(self.agent_dir)
        if misplaced:
            text += f"\n  {misplaced}"
        return text

    # -- what to list (in a listing thread) --------------------------------------------------

    def cached(self, catalog: Catalog, scope: Scope) -> list[SessionInfo]:
        """The rows of ``scope`` the cache has, without reading any session."""
        if scope == "current":
            return catalog.cached_list(self.cwd, self.session_dir)
        _, all_folder, custom = self.folders()
        return catalog.cached_dir(all_folder) if custom else catalog.cached_all()

    def listed(
        self,
        catalog: Catalog,
        scope: Scope,
        progress: Callable[[int, int], None],
        on_listed: ListedFn | None = None,
    ) -> tuple[list[SessionInfo], list[ListingProblem]]:
        """A full listing of ``scope``, and the files it could not use. ``on_listed``: the
        same, as soon as every file is read (before the cache is written)."""
        if scope == "current":
            infos = catalog.list(self.cwd, self.session_dir, progress, on_listed)
        else:
            _, all_folder, custom = self.folders()
            if custom:
                infos = catalog.list_dir(all_folder, progress, on_listed)
            else:
                infos = catalog.list_all(progress, on_listed)
        return infos, list(catalog.problems)

    # -- real paths and folders --------------------------------------------------------------

    def resolve(self, infos: list[SessionInfo]) -> Resolved:
        """In a listing thread: :meth:`real_paths` of ``infos``, and which of their folders are
        gone (one look per distinct cwd, on each listing: a folder removed since shows)."""
        return Resolved(self.real_paths(infos), missing_cwds(info.cwd for info in infos))

    def real_paths(self, infos: Iterable[SessionInfo]) -> dict[str, str]:
        """Real paths of the sessions and of their parents (pi threads and protects sessions by
        real path), for those not resolved before."""
        known = self._canon
        out: dict[str, str] = {}
        folders: dict[str, str] = {}
        for info in infos:
            for path in (info.path, info.parent_session_path):
                if isinstance(path, str) and path and path not in known and path not in out:
                    try:
                        out[path] = real_path_cached(path, folders)
                    except (OSError, ValueError):
                        out[path] = path
        return out

    def canonical(self, path: str) -> str:
        """The key pi compares session paths by (``getPathComparisonKey``): the real path,
        case-folded on Windows."""
        return os.path.normcase(self._canon.get(path, path))

    def title_of(self, path: str | None) -> str | None:
        """The row title of a listed session (by real path, as pi threads forks)."""
        if not path:
            return None
        wanted = self.canonical(path)
        for state in self.states.values():
            for info in state.infos or ():
                if self.canonical(info.path) == wanted:
                    return row_title(info)
        return None

    def open_rows(self, scope: Scope, open_paths: set[str]) -> set[str]:
        """The listed sessions of ``scope`` open in a session view (compared as real paths)."""
        if not open_paths:
            return set()
        return {info.path for info in self.states[scope].infos or () if self.canonical(info.path) in open_paths}
