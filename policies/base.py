"""The one player protocol of climbrl: scripted bots, neural checkpoints and humans alike.

A player is bound to a game (the engine's fixed facts: catalog, rules) once, then asked for
moves::

    player = policies.load("daifugo", "medium", seed=0)
    player.bind(env.unwrapped.game)
    action = player.act(observation, env.unwrapped.view(seat))

``observation`` is the env's dict for the seat to move (``observation`` vector and
``action_mask``); ``view`` is ``env.unwrapped.view(seat)``, what that seat may see as plain
values. Nothing else reaches a player: it never sees another seat's hidden cards. Every
random choice comes from the player's own ``numpy.random.Generator``, reset by
:meth:`Player.seed`, so a seeded match replays exactly.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np


class Player:
    """Base class of every player. Subclasses implement :meth:`act`; those that need the
    engine's tables (catalog, deck) read ``self.game`` after :meth:`bind`."""

    #: the registry name (``"medium"``, a checkpoint path...), set by :func:`policies.load`
    name: str = "player"

    def __init__(self, seed: int | None = None):
        self.game = None
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | np.random.SeedSequence | None) -> None:
        """Restart the player's random stream (the harness does it before every match)."""
        self.rng = np.random.default_rng(seed)

    def bind(self, game) -> Player:
        """Attach the player to a game (``env.unwrapped.game``); returns the player. Called
        before the first move of a match on a new game; cheap when the game is the same."""
        self.game = game
        return self

    def act(self, observation: dict[str, Any], view: dict[str, Any]) -> int:
        """The action id to play: one whose ``observation["action_mask"]`` entry is 1."""
        raise NotImplementedError

    def _require_game(self):
        if self.game is None:
            raise ValueError(f"player {self.name!r} is not bound: call bind(env.unwrapped.game)")
        return self.game

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


#: how often an easy player plays a uniformly random legal move ("one move in four")
EASY_MISTAKE_RATE = 0.25


class EasyMistakes:
    """The easy players' play, mixed in before a scripted player class that has ``ranked(view,
    legal)``: its first move, except a uniformly random legal move one time in
    ``1 / mistake_rate``."""

    def __init__(self, seed=None, mistake_rate: float = EASY_MISTAKE_RATE):
        super().__init__(seed)
        if not 0.0 <= float(mistake_rate) <= 1.0:
            raise ValueError(f"mistake_rate must be in [0, 1], got {mistake_rate!r}")
        self.mistake_rate = float(mistake_rate)

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        if self.rng.random() < self.mistake_rate:
            return legal[int(self.rng.integers(len(legal)))]
        return self.ranked(view, legal)[0]


class Weights:
    """Base of a scripted player's frozen dataclass of float weights, each one a knob."""

    #: the players named in an unknown-knob error ("medium", "Dou Dizhu")
    knob_owner = "player"

    @classmethod
    def from_knobs(cls, knobs: dict):
        """The weights with ``knobs`` (name -> number) replacing the defaults; ``ValueError``
        listing the known knobs for an unknown one."""
        names = {f.name for f in fields(cls)}
        unknown = set(knobs) - names
        if unknown:
            raise ValueError(
                f"unknown {cls.knob_owner} knob(s) {sorted(unknown)}; knobs are {sorted(names)}"
            )
        return cls(**{k: float(v) for k, v in knobs.items()})


def legal_ids(observation: dict[str, Any]) -> list[int]:
    """The legal action ids of an observation dict, ascending; ``ValueError`` when none is."""
    legal = np.flatnonzero(observation["action_mask"]).tolist()
    if not legal:
        raise ValueError("the observation's action_mask allows no action (not this seat's turn?)")
    return legal


class RandomPlayer(Player):
    """Uniform over the legal moves (any game)."""

    name = "random"

    def act(self, observation, view) -> int:
        legal = legal_ids(observation)
        return legal[int(self.rng.integers(len(legal)))]
