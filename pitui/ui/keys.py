"""Keys: each one acts in the order it was typed, and the user's keymap is checked.

Textual runs a priority binding the moment its key arrives, but hands every other key to the
focused widget's queue and resolves its binding only after the key has bubbled back up to the
app. Keys that arrive in one read (fast typing, SSH batching, a paste of keys) then act out of
order: ``Down Enter`` opened the row the cursor was leaving. :class:`OrderedKeys` makes the
focused widget resolve each key itself, in its own queue, one after the other, with the binding
Textual would choose (``Screen.active_bindings``: the user's keymap applied, the focused widget
first, priority bindings over the rest). A key that waits for what it acts on (the rows of a
search still running) holds every key behind it until it can act.

:func:`check_keymap` checks a ``[keys]`` table against the binding ids that exist and the
key names Textual knows; :func:`keys_for` gives the keys bound to an id after the keymap.
"""

from __future__ import annotations

import functools
import unicodedata
import weakref
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.keys import Keys
from textual.screen import Screen

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.widget import Widget

    _Focusable = Widget  # what the mixin is mixed into, for the type checker
else:
    _Focusable = object

__all__ = ["OrderedKeys", "binding_defaults", "check_keymap", "declared_bindings", "is_key", "keys_for"]

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
MOUNT_WAITS = 20  # refreshes a dialog's keys wait, at most, for its widget to take the focus
_KEY_NAMES = frozenset(key.value for key in Keys) | {"space", "backspace", "enter", "tab", "escape"}


class OrderedKeys(_Focusable):
    """A focusable widget that acts on every key in its own turn, in the order the keys came.

    Mix it in before the widget class. Keys no binding claims are text: :meth:`type_key` takes
    them (``OWNS_TEXT``), or, for a widget whose own key handling is richer (a text editor),
    they go on to it as usual (``OWNS_TEXT = False``; such a widget cannot hold keys).
    """

    OWNS_TEXT: ClassVar[bool] = True

    _held_keys: deque[tuple[str, str | None]] | None = None
    _keys_on_hold = False  # every key waits (a dialog is on its way)

    # -- what a widget says -----------------------------------------------------------------

    # The screen's own bindings win over the widget's (a dialog's Escape and Ctrl+C over an
    # Input's copy), as priority bindings would, but in turn.
    SCREEN_FIRST: ClassVar[bool] = False

    def key_waits(self, key: str, character: str | None, actions: list[tuple[DOMNode, str]]) -> bool:
        """Whether ``key`` must wait: what it acts on is not on screen yet. Default: never."""
        return False

    def key_actions(self, key: str, character: str | None = None) -> list[tuple[DOMNode, str]]:
        """The actions ``key`` may run, first choice first: the binding Textual would choose,
        then those of the widget's ancestors up to the app, nearest first (a run refused by its
        node's ``check_action``, or skipped, gives way to the next); none left, it is text."""
        screen = self.screen
        active = screen.active_bindings.get(key)
        chosen = [(active.node, active.binding.action)] if active is not None and active.enabled else []
        if self.check_consume_key(key, character):
            return chosen  # text here: the ancestors' bindings of this key do not apply
        above = [(node, binding.action) for node in self.ancestors for binding in declared_bindings(node, key)]
        if self.SCREEN_FIRST:
            return [(screen, binding.action) for binding in declared_bindings(screen, key)] + chosen + above
        return chosen + above

    def type_key(self, key: str, character: str | None) -> None:
        """A key no binding claims (with ``OWNS_TEXT``): text to type, or nothing."""

    def hold_keys(self) -> None:
        """Every key from now on waits until :meth:`release_keys`: an action has asked for a
        dialog that is not on screen yet, and the keys typed after it are the dialog's."""
        self._keys_on_hold = True

    def release_keys(self) -> None:
        """What held keys waited for is on screen: act on them now, in order (those meant for a
        dialog that has opened meanwhile go to it)."""
        self._keys_on_hold = False
        self.flush_keys()

    def flush_keys(self) -> None:
        """Hand the held keys on if the focus has moved (a dialog opened); else, unless on hold,
        act on them."""
        if self._held_keys:
            self.call_later(self._drain_held_keys)

    # -- the handler ------------------------------------------------------------------------

    _keys_waited = 0  # a screen: keys handed on while it was still focusing its widget

    def _key_target(self) -> bool | None:
        """Whether keys are this widget's now (it has the focus); None for a key that bubbled
        up from the widget that has it (a screen's child), which this widget leaves alone.

        A screen (a dialog) takes keys while no widget has the focus. A key that reached it
        before its widget took the focus (the dialog was still mounting) is that widget's."""
        app = self.app
        if not isinstance(self, Screen):
            return app.focused is self
        focused = app.focused
        if app.screen is not self:
            return False
        if focused is not None:
            if focused.screen is self and isinstance(focused, OrderedKeys) and focused.OWNS_TEXT:
                return False  # it stops every key it gets: this one came before it had the focus
            return None
        if self.focus_chain and self._keys_waited < MOUNT_WAITS:
            self._keys_waited += 1
            return False  # its widget is about to take the focus
        return True

    async def on_key(self, event: events.Key) -> None:
        app = self.app
        target = self._key_target()
        if target is None:
            return
        if not target or _forwarded.get(app):
            # Focus moved (a dialog opened, a screen changed) while this key waited in the
            # queue: it belongs to whatever has focus once that screen is ready. Or keys typed
            # before it are on their way there: it goes behind them.
            event.stop()
            event.prevent_default()
            forward_key(app, event.key, event.character)
            return
        if not self.OWNS_TEXT:
            if await self._run_key_actions(self.key_actions(event.key, event.character)):
                event.stop()
                event.prevent_default()
            return
        event.stop()
        event.prevent_default()
        if self._held_keys is None:
            self._held_keys = deque()
        self._held_keys.append((event.key, event.character))
        await self._drain_held_keys()

    async def _drain_held_keys(self) -> None:
        held = self._held_keys
        app = self.app
        while held:
            if not self._key_target():
                while held:
                    forward_key(app, *held.popleft())
                return
            if self._keys_on_hold:
                return
            key, character = held[0]
            actions = self.key_actions(key, character)
            if self.key_waits(key, character, actions):
                return
            held.popleft()
            if not await self._run_key_actions(actions):
                self.type_key(key, character)

    async def _run_key_actions(self, actions: list[tuple[DOMNode, str]]) -> bool:
        app = self.app
        for node, action in actions:
            if await app.run_action(action, node):
                return True
        return False


_forwarded: weakref.WeakKeyDictionary[App[Any], list[tuple[str, str | None]]] = weakref.WeakKeyDictionary()


def forward_key(app: App[Any], key: str, character: str | None) -> None:
    """Deliver a key again, as if typed now, once every message waiting has been handled and
    the screen drawn: a screen just pushed has mounted and focused its widget by then. Keys
    forwarded together keep their order."""
    waiting = _forwarded.get(app)
    if waiting is None:
        waiting = _forwarded[app] = []

        def deliver() -> None:
            for key, character in _forwarded.pop(app, []):
                app.post_message(events.Key(key, character))

        app.call_after_refresh(deliver)
    waiting.append((key, character))


def declared_bindings(node: DOMNode, key: str) -> list[Binding]:
    """The bindings ``node``'s class declares (with those it inherits) for ``key``, after the
    app's ``keymap``."""
    keymap: Mapping[str, str] = getattr(node.app, "keymap", {})
    found = []
    for binding in _declared_all(type(node)):
        spec = keymap.get(binding.id, binding.key) if binding.id else binding.key
        if key in (part.strip() for part in spec.split(",")):
            found.append(binding)
    return found


@functools.cache
def _declared_all(cls: type) -> tuple[Binding, ...]:
    """As Textual merges a class's bindings: down the MRO, a class's key replacing the same key
    of the classes it inherits from, ``inherit_bindings=False`` starting afresh.

    Textual keeps that class keyword in the class's own namespace as ``_inherit_bindings``, with
    no public accessor: read there, it also tells a DOM class from a mixin."""
    by_key: dict[str, list[Binding]] = {}
    for klass in reversed(cls.__mro__):
        if not isinstance(klass.__dict__.get("_inherit_bindings"), bool):
            continue  # not a DOMNode class (a mixin, object)
        if not klass.__dict__["_inherit_bindings"]:
            by_key.clear()
        declared: dict[str, list[Binding]] = {}
        for binding in _bindings_of(klass.__dict__.get("BINDINGS", ())):
            for key in binding.key.split(","):
                declared.setdefault(key.strip(), []).append(binding)
        by_key.update(declared)
    unique: dict[int, Binding] = {}
    for bindings in by_key.values():
        for binding in bindings:
            unique.setdefault(id(binding), binding)
    return tuple(unique.values())


# -- the keymap ------------------------------------------------------------------------------------


def is_key(spec: str) -> bool:
    """Whether ``spec`` names one key as Textual's keymap takes it: modifiers, then a key
    (``ctrl+shift+o``, ``f3``, ``delete``, ``L``, ``question_mark``)."""
    *modifiers, base = spec.split("+") if spec != "+" else ["+"]
    if not base or len(set(modifiers)) != len(modifiers) or not set(modifiers) <= MODIFIERS:
        return False
    if len(base) == 1:
        return base.isprintable() and not base.isspace()
    if base in _KEY_NAMES:
        return True
    try:  # Textual's names for punctuation: question_mark, full_stop, left_square_bracket
        character = unicodedata.lookup(base.replace("_", " ").upper())
    except KeyError:
        return False
    return character.isascii() and character.isprintable() and not character.isalnum()


def binding_defaults(classes: Iterable[type[DOMNode]]) -> dict[str, Binding]:
    """Every binding with an id declared by ``classes`` (and the classes they inherit from)."""
    return {binding.id: binding for cls in classes for binding in _declared_all(cls) if binding.id}


def _bindings_of(declared: Iterable[BindingType]) -> Iterable[Binding]:
    for item in declared:
        if isinstance(item, Binding):
            yield item
        elif isinstance(item, tuple) and len(item) >= 2:  # (key, action[, description])
            yield Binding(*item)


def check_keymap(
    keymap: Mapping[str, str], defaults: Mapping[str, Binding], where: str = "[keys]"
) -> tuple[dict[str, str], list[str]]:
    """The entries of ``keymap`` that can be used, and a sentence for each that cannot: an id
    no binding has, or a key that is not a key (that binding keeps its default keys)."""
    usable: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, spec in keymap.items():
        if binding_id not in defaults:
            close = [known for known in sorted(defaults) if known.split(".")[0] == binding_id.split(".")[0]]
            hint = f" (ids here: {', '.join(close)})" if close else " (F1 lists every id)"
            problems.append(f"{where}: no binding has the id {binding_id!r}{hint}")
            continue
        keys = [key.strip() for key in spec.split(",")]
        bad = [key for key in keys if not is_key(key)]
        if bad:
            default = defaults[binding_id].key
            problems.append(
                f"{where}: {binding_id} = {spec!r}: {', '.join(map(repr, bad))} "
                f"{'is not a key' if len(bad) == 1 else 'are not keys'}; keeping {default!r}"
            )
            continue
        usable[binding_id] = ",".join(keys)
    return usable, problems


def keys_for(binding_id: str, keymap: Mapping[str, str], defaults: Mapping[str, Binding]) -> list[str]:
    """The keys bound to ``binding_id`` after the user's keymap, in the order given."""
    spec = keymap.get(binding_id)
    if spec is None:
        binding = defaults.get(binding_id)
        spec = binding.key if binding is not None else ""
    return [key.strip() for key in spec.split(",") if key.strip()]
