"""The pitui app: the session picker, the session view, and what they share.

Screens: :class:`~pitui.ui.screens.picker.PickerScreen` (always at the bottom of the stack) and
:class:`~pitui.ui.screens.session.SessionScreen` pushed over it for one session. The app owns
the catalog (the cached listing of every session) and the clock, so that tests can fix both.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from msgspec import Struct
from textual.app import App
from textual.binding import Binding, BindingType

from pitui.config import Config
from pitui.safe_text import safe_line
from pitui.ui.keys import binding_defaults, check_keymap, keys_for
from pitui.ui.workers import work

if TYPE_CHECKING:
    from pitui.store.catalog import Catalog, Scope
    from pitui.store.session_cwd import MissingCwd
    from pitui.store.session_index import IndexCache

__all__ = ["AppResult", "PituiApp", "styles_dir"]


def styles_dir() -> Path:
    """The .tcss files: inside the installed package, or at the top of a source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "styles", package.parent / "styles"):
        if (candidate / "app.tcss").is_file():
            return candidate
    raise FileNotFoundError(f"pitui's styles are missing (looked in {package / 'styles'})")


STYLE_FILES = (
    "app.tcss",
    "picker.tcss",
    "session.tcss",
    "dialogs.tcss",
    "compare.tcss",
    "entry_search.tcss",
    "usage.tcss",
)


class AppResult(Struct, frozen=True):
    """What the user chose when the app ended: print a session's path, or resume it in pi."""

    action: Literal["print", "resume"]
    path: str
    cwd: str | None = None  # where to resume it: the session's folder, if it still exists
    note: str | None = None  # said on the terminal before the resume command starts


class PituiApp(App[AppResult | None]):
    """``pitui``: the picker over a folder's sessions (or every project's), and the session view.

    ``cwd`` and ``session_dir`` choose "this folder" as pi does; ``scope`` is where the picker
    starts (``"current"`` or ``"all"``). ``open_path`` opens that session's view at start (over
    the picker, so Escape goes back to it). With ``print_mode``, choosing a session ends the app
    with its path instead of opening it. ``now`` gives the time in ms (ages in rows), ``catalog``
    the listing to use (tests), ``watch`` whether files are followed with watchfiles.
    """

    TITLE = "pitui"
    CSS_PATH: ClassVar = [styles_dir() / name for name in STYLE_FILES]
    # Ctrl+P is pi's "show paths" key in the picker: the command palette moves to F2.
    COMMAND_PALETTE_BINDING = "f2"
    BINDING_GROUP_TITLE = "Everywhere"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Quit pitui", show=False, priority=True),
        Binding("f1", "help", "Keys", id="app.help", tooltip="This list of keys"),
        Binding("f2", "command_palette", "Commands", id="app.commands", tooltip="The command palette", show=False),
    ]

    def __init__(
        self,
        *,
        cwd: str | None = None,
        session_dir: str | None = None,
        agent_dir: str | None = None,
        scope: Scope = "current",
        open_path: str | None = None,
        print_mode: bool = False,
        config: Config | None = None,
        now: Callable[[], float] | None = None,
        catalog: Catalog | None = None,
        watch: bool = True,
    ) -> None:
        super().__init__()
        self.cwd = cwd or os.getcwd()
        self.session_dir = session_dir
        self.agent_dir = agent_dir
        self.start_scope = scope
        self.open_path = open_path
        self.print_mode = print_mode
        self.config = config or Config()
        self._now = now or (lambda: time.time() * 1000)
        self._catalog = catalog
        self.watch_files = watch
        self.keymap: dict[str, str] = {}  # the config's [keys] that name a binding and real keys
        # Set once the app is told to end: work that nobody would see from then on (the session
        # view's facts count) is left undone, so that the end does not wait for it.
        self.ending = False

    # -- keys ------------------------------------------------------------------------------

    @functools.cached_property
    def binding_defaults(self) -> dict[str, Binding]:
        """Every binding id of the app, its screens and widgets, with its default keys."""
        from pitui.ui.screens.compare import CompareScreen
        from pitui.ui.screens.dialogs import DIALOGS, NoteEditor
        from pitui.ui.screens.entry_search import EntrySearchScreen
        from pitui.ui.screens.help import HelpScreen
        from pitui.ui.screens.missing_cwd import MissingCwdDialog
        from pitui.ui.screens.picker import PickerScreen
        from pitui.ui.screens.session import SessionScreen
        from pitui.ui.screens.usage import UsageScreen
        from pitui.ui.widgets.conversation.view import ConversationView
        from pitui.ui.widgets.session_tree import SessionTree

        return binding_defaults(
            [
                type(self),
                PickerScreen,
                SessionScreen,
                SessionTree,
                ConversationView,
                HelpScreen,
                *DIALOGS,
                MissingCwdDialog,
                NoteEditor,
                UsageScreen,
                EntrySearchScreen,
                CompareScreen,
            ]
        )

    @functools.cached_property
    def _picker_binding_defaults(self) -> dict[str, Binding]:
        """The bindings of the app and the picker: what the first screen's hints name. Taken
        from these two classes alone, so that a start without a keymap imports no other screen."""
        from pitui.ui.screens.picker import PickerScreen

        return binding_defaults([type(self), PickerScreen])

    def keys_for(self, binding_id: str) -> list[str]:
        """The keys bound to ``binding_id`` now: the user's keymap, else the default."""
        if not self.keymap and binding_id in self._picker_binding_defaults:
            return keys_for(binding_id, self.keymap, self._picker_binding_defaults)
        return keys_for(binding_id, self.keymap, self.binding_defaults)

    def keys_text(self, binding_id: str, separator: str = "/") -> str:
        """Those keys as pi writes them in its hints (``ctrl+d``, ``escape/ctrl+c``)."""
        return separator.join(self.keys_for(binding_id))

    # -- shared services -------------------------------------------------------------------

    def ensure_catalog(self) -> Catalog:
        """The catalog, opened now if it is not open yet. Screens call it on the UI thread
        before their workers use :attr:`catalog`, so that two threads never both open it."""
        if self._catalog is None:
            from pitui.store.catalog import Catalog

            # The app lives long enough to fill the full-text index after its listings.
            self._catalog = Catalog(self.agent_dir, index_in_background=True)
        return self._catalog

    @property
    def catalog(self) -> Catalog:
        return self.ensure_catalog()

    @functools.cached_property
    def session_index(self) -> IndexCache:
        """The sessions' indexes in the cache folder: a session read before reopens from its
        own, and one read whole is indexed once its first screen is on its way (the session
        screen asks for it on the UI thread, before its worker reads)."""
        from pitui.store.session_index import IndexCache

        return IndexCache.default(deferred=True)

    def now_ms(self) -> float:
        return self._now()

    # -- lifecycle -------------------------------------------------------------------------

    def on_mount(self) -> None:
        if self.config.keys:  # checked against every screen's bindings (which imports them all)
            where = f"{self.config.path}: [keys]" if self.config.path else "[keys]"
            self.keymap, problems = check_keymap(self.config.keys, self.binding_defaults, where)
            if self.keymap:
                self.set_keymap(self.keymap)
            for problem in problems:
                self.notify(problem, title="Config", severity="warning", markup=False, timeout=10)
        if self.config.theme in self.available_themes:
            self.theme = self.config.theme
        else:
            self.notify(
                f"{self.config.path}: no theme named {self.config.theme!r}; themes: "
                f"{', '.join(sorted(self.available_themes))}",
                title="Config",
                severity="warning",
                markup=False,
                timeout=8,
            )
        for problem in self.config.problems:
            self.notify(problem, title="Config", severity="warning", markup=False, timeout=8)
        if self.open_path:
            # The picker comes when the user goes back to it: listing sessions now would only
            # slow the session's first screen down.
            self.open_session(self.open_path)
        else:
            from pitui.ui.screens.picker import PickerScreen

            self.push_screen(PickerScreen(scope=self.start_scope))

    def exit(self, result: AppResult | None = None, return_code: int = 0, message: Any = None) -> None:
        self.ending = True
        super().exit(result, return_code, message)

    def on_unmount(self) -> None:
        if self._catalog is not None:
            self._catalog.close()

    # -- what screens ask of the app -------------------------------------------------------

    def open_session(self, path: str, entry_id: str | None = None, status: str | None = None) -> None:
        """Show one session's tree and conversation (``entry_id`` highlighted, else the leaf;
        ``status`` said in its status line)."""
        from pitui.ui.screens.session import SessionScreen

        self.push_screen(SessionScreen(path, entry_id=entry_id, status=status))

    def open_session_paths(self) -> set[str]:
        """The sessions open in a view now (real paths): the picker must not trash them."""
        return {
            os.path.realpath(path) for screen in self.screen_stack if (path := getattr(screen, "session_path", None))
        }

    def leave_session(self) -> None:
        """Back from a session view: to the picker under it, or to a new one (``pitui FILE``)."""
        from pitui.ui.screens.picker import PickerScreen

        # Under this view: the picker, or the session it was forked or cloned from.
        if len(self.screen_stack) > 2 or any(isinstance(screen, PickerScreen) for screen in self.screen_stack):
            self.pop_screen()
        else:
            self.switch_screen(PickerScreen(scope=self.start_scope))

    def back_to_picker(self, status: str | None = None) -> None:
        """Leave every session view for the picker (after the session was trashed), where
        ``status`` is said."""
        from pitui.ui.screens.picker import PickerScreen

        while len(self.screen_stack) > 2 and not isinstance(self.screen, PickerScreen):
            self.pop_screen()
        if not isinstance(self.screen, PickerScreen):
            self.leave_session()
        if status:
            self.call_after_refresh(self._say_in_picker, status)

    def _say_in_picker(self, status: str) -> None:
        from pitui.ui.screens.picker import PickerScreen

        if isinstance(self.screen, PickerScreen):
            self.screen.say(status)

    def choose_session(self, path: str) -> None:
        """The user picked a session in the picker: open it, or print it and end (``--print``)."""
        if self.print_mode:
            self.exit(AppResult("print", path))
        else:
            self.open_session(path)

    def resume_in_pi(self, path: str, cwd: str | None) -> None:
        """End the app; the command line then runs the resume command on ``path`` in ``cwd``
        (the session's folder). If that folder no longer exists, first ask what pi 1.6 asks
        (continue in the current folder, fork into it, cancel). If the command is not
        installed, stay, and copy and show the command to run instead."""
        from pitui.store.session_cwd import fork_folder, missing_cwd

        argv = self.config.resume_argv(path)
        here = self.cwd if os.path.isdir(self.cwd) else os.getcwd()
        issue = missing_cwd(path, cwd, here)
        if issue is not None and shutil.which(argv[0]) is not None:
            from pitui.ui.screens.missing_cwd import MissingCwdDialog

            folder = fork_folder(here, self.session_dir, self.agent_dir)
            self.push_screen(
                MissingCwdDialog(issue, folder), functools.partial(self._missing_cwd_chosen, issue, folder)
            )
            return
        folder = cwd if cwd and os.path.isdir(cwd) else None
        if shutil.which(argv[0]) is not None:
            self.exit(AppResult("resume", path, folder))
            return
        command = shlex.join(argv)
        if folder:
            command = f"cd {shlex.quote(folder)} && {command}"
        self.copy_to_clipboard(command)
        self.notify(
            f"{argv[0]} is not installed (not on PATH). To resume the session, run (copied to the "
            f"clipboard):\n{safe_line(command)}",
            title="Resume",
            severity="warning",
            markup=False,
            timeout=15,
        )

    def _missing_cwd_chosen(self, issue: MissingCwd, folder: str, choice: str | None) -> None:
        if choice == "continue":
            note = f"Resuming in {issue.fallback_cwd}: the session's folder {issue.session_cwd} no longer exists"
            self.exit(AppResult("resume", issue.session_file, issue.fallback_cwd, note))
        elif choice == "fork":
            self._fork_for_resume(issue, folder)
        else:
            self.notify("Resume cancelled", markup=False, timeout=2)

    @work(thread=True, exclusive=True, group="resume-fork", exit_on_error=False)
    def _fork_for_resume(self, issue: MissingCwd, folder: str) -> None:
        from pitui.store.session_cwd import fork_into

        try:
            forked = fork_into(issue, folder)
        except (OSError, ValueError) as error:  # the source vanished, a full disk, not a session
            message = f"Failed to fork: {error}"
            self.call_from_thread(self.notify, message, severity="error", markup=False, timeout=8)
            return
        self.call_from_thread(self.exit, AppResult("resume", forked.path, forked.cwd, forked.status))

    def action_help(self) -> None:
        from pitui.ui.screens.help import HelpScreen  # rich's tables: not for the first screen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))
