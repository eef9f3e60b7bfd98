"""Opponents of the trainer's evaluations: any player of the registry (:func:`climbrl.policies.load`:
``random``, ``scripted-medium``, ``hard``...), behind the players' protocol
``player.bind(game)``, ``player.act(observation, view) -> int``."""

from __future__ import annotations

import numpy as np

from climbrl import policies
from climbrl.envs.core.game import seat_observation


def make_opponent(name: str, game, seed):
    """The player ``name`` of ``game``'s family, seeded and bound to ``game``."""
    return policies.load(game.name, name, seed=seed).bind(game)


def opponent_move(player, game, state, seat: int, observation: np.ndarray | None = None) -> int:
    """``player``'s move for ``seat`` in an engine ``state`` of ``game``, given what the
    PettingZoo env would give it: the observation with its legal-move mask, and the view.
    ``observation``: ``game.observe(state, seat)`` when the caller has built it already."""
    return player.act(seat_observation(game, state, seat, observation), state.view(seat))


def check_opponent(name: str, game: str, setting: str = "eval_opponent") -> None:
    """Refuse an opponent name the registry does not know, listing those it knows."""
    if not isinstance(name, str):
        raise ValueError(f"{setting}: a player's name is text, got {name!r}")
    base, _knobs = policies.parse_spec(name)
    if base not in policies.known_names(game):
        raise ValueError(f"unknown {setting} {name!r} for {game!r}; players are "
                         f"{', '.join(policies.known_names(game))}")
