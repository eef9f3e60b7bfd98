"""Hints: an ordered list of suggested moves for a position, each call the next one.

As docs/rules.md describes them (a different move at each request): the first call
in a position gives the best move of a scripted ranking, the next call the second best, and so
on, wrapping around; a new position starts again from the best.

>>> hints = Hints(climbrl.policies.load("daifugo", "scripted-medium").bind(env.unwrapped.game))
>>> hints.next(observation, view)          # doctest: +SKIP
"""

from __future__ import annotations

import threading
from typing import Any

from .base import legal_ids


class Hints:
    """Cycles through ``ranker.ranked(view, legal)`` (any scripted player has ``ranked``)."""

    def __init__(self, ranker):
        if not hasattr(ranker, "ranked"):
            raise ValueError(f"{ranker!r} cannot rank moves: hints need a scripted player")
        self.ranker = ranker
        self._key: tuple | None = None
        self._order: list[int] = []
        self._next = 0
        self._lock = threading.Lock()  # a server answers hint requests from worker threads

    def suggestions(self, observation: dict[str, Any], view: dict[str, Any]) -> list[int]:
        """Every legal move of the position, best first."""
        return self.ranker.ranked(view, legal_ids(observation))

    def next(self, observation: dict[str, Any], view: dict[str, Any]) -> int:
        """The next suggestion for this position (the best one in a new position)."""
        return self.next_counted(observation, view)[0]

    def next_counted(self, observation: dict[str, Any], view: dict[str, Any]) -> tuple[int, int, int]:
        """``(action, index, total)``: the next suggestion, its place in this position's
        order and the order's length, worked out at once (safe from several threads)."""
        with self._lock:
            key = _position_key(view)
            if key != self._key:
                self._key = key
                self._order = self.suggestions(observation, view)
                self._next = 0
            index = self._next % len(self._order)
            self._next += 1
            return self._order[index], index, len(self._order)


def _position_key(view: dict[str, Any]) -> tuple:
    """What identifies a position for the hint cycle: seat, hand, history length, pile."""
    return (
        view.get("seat"),
        view.get("phase"),
        str(view.get("hand")),
        len(view.get("history", ())),
        str(view.get("pile")),
    )
