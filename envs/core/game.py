"""The interface every climbrl engine offers; the PettingZoo adapter, the bots and the trainer
speak only this.

A *game* holds the fixed facts of one rules config (players, action catalog, observation
layout) and makes states. A *state* is one position: whose turn, the legal action ids, and
``apply`` to move on. Engines are pure Python (plus numpy) and never import PettingZoo or torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .layout import ObsLayout


class IllegalActionError(ValueError):
    """An action id that is not legal in the current state (a ``ValueError``)."""


class State(Protocol):
    current_player: int
    """Seat to act next; ``-1`` once the game is over."""

    terminal: bool

    def legal_actions(self) -> list[int]:
        """Catalog ids of the legal actions for ``current_player``."""

    def apply(self, action: int) -> Sequence[float] | None:
        """Play ``action`` for ``current_player``. Returns the reward of each seat earned by this
        step (end of a round or of the game) or ``None`` when nobody earned anything. Raises
        :class:`IllegalActionError` for an illegal id."""

    def clone(self) -> State: ...

    @property
    def deal_code(self) -> str: ...

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may see, as plain Python values with cards as text."""

    def returns(self) -> list[float]:
        """Total reward of each seat so far."""


class Game(Protocol):
    name: str
    version: int
    num_players: int
    num_actions: int
    layout: ObsLayout
    max_game_length: int

    def new_state(self, rng: np.random.Generator, options: dict | None = None) -> State: ...

    def observe(self, state: State, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation vector of ``seat`` (float32, ``layout.size``)."""

    def action_to_str(self, action: int) -> str: ...

    def action_from_str(self, text: str, state: State | None = None) -> int: ...

    def render(self, state: State) -> str: ...

    def info(self, state: State, seat: int) -> dict[str, Any]:
        """Extra facts for PettingZoo's ``infos`` (refreshed at reset and at round ends)."""

    def config_dict(self) -> dict[str, Any]:
        """The rules config as plain values (recorded in checkpoints)."""
