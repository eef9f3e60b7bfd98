"""Opponents for the trainer's periodic evaluation, behind the players' protocol
``player.act(observation, view) -> int`` (``observation`` as PettingZoo gives it: a dict with
``"observation"`` and ``"action_mask"``; ``view`` the seat's ``state.view(seat)``).

Only a uniform-random player lives here; the scripted bots come from ``policies`` once the bots
branch lands.
"""

from __future__ import annotations

import numpy as np

OPPONENTS = ("random",)


class UniformRandomPlayer:
    """Plays a uniformly random legal move."""

    def __init__(self, seed: int | np.random.Generator | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation, view) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


def make_opponent(name: str, game, seed) -> UniformRandomPlayer:
    if name == "random":
        return UniformRandomPlayer(seed)
    raise ValueError(f"unknown evaluation opponent {name!r}; opponents are {OPPONENTS}")


def check_opponent(name: str, game: str, harness: bool) -> None:
    """Refuse an evaluation opponent the chosen evaluation cannot seat."""
    if harness:
        from policies.registry import known_names

        if name not in known_names(game) and not name.startswith("scripted-"):
            raise ValueError(f"unknown eval_opponent {name!r} for {game!r}; players are "
                             f"{known_names(game)}")
    elif name not in OPPONENTS:
        raise ValueError(f"eval_opponent {name!r} needs the evaluation harness "
                         f"(training.evaluate); without it the opponents are {OPPONENTS}")
