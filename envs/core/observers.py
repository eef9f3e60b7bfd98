"""Incremental seat observers kept per game slot: what the trainer's actors and the vector
envs (:mod:`climbrl.envs.vector`) use to write many tables' observations into one array.

A game may offer ``seat_observer(seat)`` (:class:`~climbrl.envs.core.game.Game`): an object
whose ``observe(state)`` returns the seat's vector in its own buffer, rewritten only where
the state changed since its last call. :func:`seat_observer` keeps them in a slot's dict and
falls back to the game's from-scratch writer (:class:`ScratchObserver`).
"""

from __future__ import annotations

import numpy as np

_GAME = "game"
"""the key of the game in a slot's dict of observers (the other keys are seats)"""


class ScratchObserver:
    """The observer of a game without an incremental one: its writer, from scratch."""

    def __init__(self, game, seat: int):
        self.game, self.seat = game, seat

    def observe(self, state) -> np.ndarray:
        return self.game.observe(state, self.seat)


def seat_observer(held: dict, game, seat: int):
    """``game``'s incremental observer of ``seat`` (``game.seat_observer``, else one writing
    from scratch) in ``held``, a game slot's observers by seat: made on first use, then kept;
    when the slot's table changes, the old table's are dropped (memory stays bounded however
    many tables are drawn)."""
    if held.get(_GAME) is not game:
        held.clear()
        held[_GAME] = game
    observer = held.get(seat)
    if observer is None:
        make = getattr(game, "seat_observer", None)
        observer = held[seat] = make(seat) if make else ScratchObserver(game, seat)
    return observer
