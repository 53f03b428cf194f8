"""The picker following the disk: once its first listing is on screen, a change to a session
file lists the scopes it touches again. A mixin of :class:`~pitui.ui.screens.picker.PickerScreen`,
which owns the listing and the preview these ask for."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pitui.ui.workers import work

if TYPE_CHECKING:
    import threading

    from pitui.store.catalog import Scope
    from pitui.ui.app import PituiApp
    from pitui.ui.screens.picker_listing import PickerListing

__all__ = ["PickerFollowing"]


class PickerFollowing:
    """Following the disk for :class:`~pitui.ui.screens.picker.PickerScreen` (mixed in before
    the screen)."""

    WATCH_DEBOUNCE_MS: ClassVar[int] = 400

    if TYPE_CHECKING:
        listing: PickerListing
        _stop_watch: threading.Event
        _watching: bool
        _preview_path: str | None

        @property
        def app(self) -> PituiApp: ...
        @property
        def is_attached(self) -> bool: ...
        def call_after_refresh(self, callback: object) -> bool: ...
        def notify(self, message: str, *, severity: str = ..., markup: bool = ...) -> None: ...
        def _request_load(self, scope: Scope) -> None: ...
        def _preview(self, path: str) -> None: ...

    def _follow_disk(self) -> None:
        """Follow the disk from now on, once: after the first listing's rows are drawn (the
        watcher's imports would delay them). What changed before the watcher was up is caught
        by listing every scope shown again then (a stat per unchanged file)."""
        if not self._watching and self.app.watch_files:
            self._watching = True
            self.call_after_refresh(self._watch)

    @work(group="picker-watch", exclusive=True, exit_on_error=False)
    async def _watch(self) -> None:
        from pitui.store.watch import watch_sessions

        current, everything, _ = self.listing.folders()
        try:
            async for paths in watch_sessions(
                [current, everything],
                self._stop_watch,
                debounce_ms=self.WATCH_DEBOUNCE_MS,
                started=self._watch_started,
            ):
                self._disk_changed(paths)
        except OSError as error:  # no more inotify watches, a folder that cannot be watched
            self.notify(f"Not following changes on disk: {error}", severity="warning", markup=False)

    def _watch_started(self) -> None:
        if self._stop_watch.is_set() or not self.is_attached:  # the picker has gone meanwhile
            return
        for scope, state in self.listing.states.items():
            if state.infos is not None or state.loading:
                self._request_load(scope)

    def _disk_changed(self, paths: set[str]) -> None:
        for scope in self.listing.touched(paths):
            self._request_load(scope)
        if self._preview_path in paths:
            self._preview(self._preview_path)
