"""Engines and catalogs shared by the rooms that play the same rules, in bounded memory.

A Daifugo catalog or a Dou Dizhu engine takes megabytes and up to seconds to build, and rooms
may choose among thousands of rule mixes. :class:`Shared` builds one value per key and finds
it again while anything still uses it (a room's table holds its engine: a weak reference
here), and keeps only the last few asked for when nothing does (least recently used go
first). Memory then follows the rules of the tables in play, not every mix ever asked for.
The lobby's usual tables are built once at start-up and pinned (:meth:`Shared.pin`): kept for
good, however many other mixes are asked for since, so that no room of theirs builds one
while the server plays.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class Shared:
    """``shared(key, *args)``: the value of ``key``, built by ``build(*args)`` the first time
    and shared while in use; the ``keep`` last asked for are kept unused too. Thread-safe
    (rooms are built in threads): a thread asking for a key being built waits for that build
    rather than build it again, and builds of other keys go on meanwhile."""

    def __init__(self, build: Callable[..., Any], keep: int):
        if keep < 1:
            raise ValueError(f"keep must be 1 or more, got {keep!r}")
        self.build = build
        self.keep = keep
        self._in_use: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}
        self._pinned: dict[Hashable, Any] = {}
        """the values kept for good (:meth:`pin`), beside the ``keep`` last asked for"""
        self.builds = 0
        """values built so far (a measure of how often the kept ones were not enough)"""

    def __call__(self, key: Hashable, *args: Any) -> Any:
        value = self._found(key)
        if value is not None:
            return value
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        with building:  # one build per key at a time; the others wait for it
            value = self._found(key)
            if value is None:
                value = self.build(*args)
                with self._lock:
                    self._in_use[key] = value
                    self.builds += 1
                    self._remember(key, value)
        with self._lock:
            if self._building.get(key) is building and not building.locked():
                del self._building[key]
        return value

    def pin(self, key: Hashable, *args: Any) -> Any:
        """``self(key, *args)``, kept for good: no number of other keys asked for since
        drops it (the lobby's usual tables, built at start-up)."""
        value = self(key, *args)
        with self._lock:
            self._pinned[key] = value
        return value

    def pinned(self) -> int:
        """Values kept for good."""
        return len(self._pinned)

    def _found(self, key: Hashable) -> Any:
        with self._lock:
            value = self._in_use.get(key)
            if value is not None:
                self._remember(key, value)
            return value

    def _remember(self, key: Hashable, value: Any) -> None:
        self._kept[key] = value
        self._kept.move_to_end(key)
        while len(self._kept) > self.keep:
            self._kept.popitem(last=False)

    def in_use(self) -> int:
        """Values alive now (kept, or held by a table)."""
        return len(self._in_use)

    def cache_clear(self) -> None:
        """Forget every value, pinned ones too (tables that hold one keep it)."""
        with self._lock:
            self._in_use = weakref.WeakValueDictionary()
            self._kept.clear()
            self._pinned.clear()
